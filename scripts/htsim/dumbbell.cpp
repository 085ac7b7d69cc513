// A NewReno dumbbell for htsim (csg-htsim's TcpSrc/TcpSink), our own driver for the side-by-side
// CPU comparison; scripts/htsim_compare.py builds and times it against our `run` example.
//
// What it builds (the same topology as docs/bench/newreno-*.json): FLOWS TcpSrc -> TcpSink pairs
// sharing one drop-tail Queue (RATE Mbit/s, BUFFER packets of 1500 bytes) followed by a Pipe of 50 ms
// (the forward path, as our "bottleneck" hop); ACKs return through a second Queue at the same rate
// with an unbounded buffer and a 50 ms Pipe (our "ack" hop with an infinite queue): 100 ms base RTT.
// Every flow starts at t = 0 and sends for SECONDS simulated seconds (EventList end time). htsim's
// TCP: NewReno-like, one ACK per data packet, no SACK/timestamps/delayed ACKs; retransmission
// timeouts checked by a TcpRtxTimerScanner every 10 ms (as htsim's own main_*.cpp do).
// No logger is attached (htsim's fastest configuration).
//
// Packet sizes: htsim's default data packet is 1500 bytes on the wire (Packet::data_packet_size, the
// TcpSrc MSS) and a TcpAck 40 bytes; our core sends 1500-byte segments (1448 payload + 52 header)
// and 52-byte ACKs. Initial window 10 packets in both.
//
// Initial ssthresh (--ssthresh-pkts): htsim's TcpSrc starts with ssthresh = 100 packets; ours (like
// Linux) starts unbounded. Unbounded in htsim, whose NewReno has no SACK and repairs one loss per
// round trip, turns the slow-start overshoot into hundreds to thousands of losses repaired over tens
// of seconds (1 flow, 24 Mbit/s, 60 s: 451 drops, goodput 0.35 Mbit/s); 100 packets leaves a long-fat
// pipe underused (10 flows, 1 Gbit/s, 10 s: utilisation 0.17). Neither carries the traffic our core
// carries on every row, so the value is an argument: a number of packets, "inf" (unbounded,
// the default) or "htsim" (keep htsim's 100 packets). scripts/htsim_compare.py passes, per row, the
// window at which the path is full, (BDP + buffer) / flows, and reports how close the carried
// traffic is.
//
// Output: one JSON line (the last line of stdout; htsim itself may print retransmission-timeout
// notices before it) with data packets sent (TcpSrc::_packets_sent / MSS: new data and
// retransmissions; the SYN is not counted), bytes delivered to the sinks, bottleneck drops,
// utilisation (sink-received bytes x 8 / (rate x seconds): the bottleneck's departures, less the
// packets still on the forward pipe at the end), goodput, simulated seconds, events and peak RSS.
//
// Build against a csg-htsim checkout DIR (htsim's own flags, from DIR/sim/Makefile: -O3 -std=c++11):
//   g++ -Wall -std=c++11 -g -fPIE -O3 -I DIR/sim -o dumbbell scripts/htsim/dumbbell.cpp
//       DIR/sim/{eventlist,network,config,pipe,queue,tcp,tcppacket,route,mtcp,loggers}.cpp
// (scripts/htsim_compare.py --htsim-src DIR does exactly this, reading CFLAGS from the Makefile;
// with a full checkout, linking DIR/sim/libhtsim.a from `make -C DIR/sim libhtsim.a` should work
// too: not tried, only a partial tree was at hand).
//
// Usage: dumbbell RATE_MBPS BUFFER_PKTS FLOWS SECONDS [--ssthresh-pkts N|inf|htsim]

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "config.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "route.h"
#include "tcp.h"

// Peak resident set size of this process in KiB (Linux VmHWM; -1 if unknown), as our run example
// reports it (getrusage's ru_maxrss may carry the parent's high-water mark over exec).
static long peak_rss_kib() {
    FILE* f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kib = strtol(line + 6, nullptr, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

static double parse_positive(const char* name, const char* text) {
    char* end = nullptr;
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(v > 0)) {
        fprintf(stderr, "error: %s must be a positive number, got '%s'\n", name, text);
        exit(2);
    }
    return v;
}

int main(int argc, char** argv) {
    std::string ssthresh_arg = "inf";
    std::vector<const char*> pos;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ssthresh-pkts") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: --ssthresh-pkts needs a value (packets, inf or htsim)\n");
                return 2;
            }
            ssthresh_arg = argv[++i];
        } else {
            pos.push_back(argv[i]);
        }
    }
    if (pos.size() != 4) {
        fprintf(stderr, "usage: %s RATE_MBPS BUFFER_PKTS FLOWS SECONDS [--ssthresh-pkts N|inf|htsim]\n",
                argv[0]);
        return 2;
    }
    double mbps = parse_positive("RATE_MBPS", pos[0]);
    double buffer_pkts = parse_positive("BUFFER_PKTS", pos[1]);
    double flows_d = parse_positive("FLOWS", pos[2]);
    double seconds = parse_positive("SECONDS", pos[3]);
    if (flows_d != (double)(int)flows_d || flows_d > 1e6) {
        fprintf(stderr, "error: FLOWS must be a whole number up to 1000000, got '%s'\n", pos[2]);
        return 2;
    }
    int flows = (int)flows_d;
    // Initial ssthresh in bytes; 0 = keep htsim's default.
    uint64_t ssthresh_bytes = 0;
    if (ssthresh_arg == "inf") {
        ssthresh_bytes = 0xffffffffu;
    } else if (ssthresh_arg != "htsim") {
        double pkts = parse_positive("--ssthresh-pkts", ssthresh_arg.c_str());
        double bytes = pkts * Packet::data_packet_size();
        ssthresh_bytes = bytes >= 4294967295.0 ? 0xffffffffu : (uint64_t)bytes;
    }

    EventList& eventlist = EventList::getTheEventList();
    eventlist.setEndtime(timeFromSec(seconds));

    const simtime_picosec one_way = timeFromMs(50.0);
    linkspeed_bps rate = speedFromMbps(mbps);
    const int mss = Packet::data_packet_size();  // 1500 bytes (network.cpp DEFAULTDATASIZE)

    // Forward: drop-tail bottleneck queue then a 50 ms pipe.
    Queue fwd_queue(rate, memFromPkt(buffer_pkts), eventlist, nullptr);
    Pipe fwd_pipe(one_way, eventlist);
    // Reverse (ACKs): same rate, a buffer no run can fill, then a 50 ms pipe.
    Queue rev_queue(rate, (mem_b)1 << 60, eventlist, nullptr);
    Pipe rev_pipe(one_way, eventlist);

    TcpRtxTimerScanner rtx_scanner(timeFromMs(10.0), eventlist);

    std::vector<TcpSrc*> srcs;
    std::vector<TcpSink*> sinks;
    for (int i = 0; i < flows; i++) {
        TcpSrc* src = new TcpSrc(nullptr, nullptr, eventlist);
        TcpSink* sink = new TcpSink();
        if (ssthresh_bytes != 0)
            src->set_ssthresh(ssthresh_bytes);
        Route* out = new Route();
        out->push_back(&fwd_queue);
        out->push_back(&fwd_pipe);
        out->push_back(sink);
        Route* back = new Route();
        back->push_back(&rev_queue);
        back->push_back(&rev_pipe);
        back->push_back(src);
        src->connect(*out, *back, *sink, 0);
        rtx_scanner.registerTcp(*src);
        srcs.push_back(src);
        sinks.push_back(sink);
    }

    uint64_t events = 0;
    while (eventlist.doNextEvent())
        events++;

    uint64_t sent_bytes = 0, received_bytes = 0, acked_bytes = 0;
    for (int i = 0; i < flows; i++) {
        sent_bytes += srcs[i]->_packets_sent;
        received_bytes += sinks[i]->_packets;
        acked_bytes += sinks[i]->_cumulative_ack;
    }
    double bits_capacity = (double)rate * seconds;
    printf("{\"simulator\": \"htsim\", \"rate_mbps\": %g, \"buffer_pkts\": %g, \"flows\": %d, "
           "\"seconds\": %g, \"simulated_s\": %.6f, \"events\": %" PRIu64 ", \"mss\": %d, "
           "\"data_packets\": %" PRIu64 ", \"received_bytes\": %" PRIu64 ", \"drops\": %d, "
           "\"utilization\": %.6f, \"goodput_mbps\": %.6f, \"initial_ssthresh\": \"%s\", "
           "\"peak_rss_kib\": %ld}\n",
           mbps, buffer_pkts, flows, seconds, timeAsSec(EventList::now()), events, mss,
           sent_bytes / (uint64_t)mss, received_bytes, fwd_queue.num_drops(),
           (double)received_bytes * 8.0 / bits_capacity, (double)acked_bytes * 8.0 / seconds / 1e6,
           ssthresh_arg.c_str(), peak_rss_kib());
    return 0;
}
