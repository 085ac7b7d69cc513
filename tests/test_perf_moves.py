"""scripts/perf_moves.py: the share of samples on vector moves, from `perf annotate --stdio` text."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("perf_moves", ROOT / "scripts" / "perf_moves.py")
pm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pm)

# Two functions as perf annotate prints them: 300 samples (40 % + 10 % on moves) and 100 (none).
ANNOTATE = """\
 Percent |	Source code & Disassembly of run for cpu-clock:ppp (300 samples, percent: local period)
----------------------------------------------------------------------------------------------------
         :
         :   0000000000073160 <hot_copy>:
   40.00 :   73160:  movaps (%rsi),%xmm0
   10.00 :   73164:  vmovdqu 0x10(%rsi),%ymm1
   50.00 :   73168:  cmp    %rax,%rdi
 Percent |	Source code & Disassembly of run for cpu-clock:ppp (100 samples, percent: local period)
----------------------------------------------------------------------------------------------------
         :   0000000000064da0 <no_copy>:
   70.00 :   64da0:  mov    0x8(%rdi),%rdx
   30.00 :   64da4:  movzbl 0x4e(%rsi),%eax
"""


def test_shares_count_only_vector_moves_weighted_by_each_functions_samples():
    total, moves, rows = pm.shares(ANNOTATE)
    assert total == 400
    assert moves == 150  # 50 % of 300; `mov` and `movzbl` are not vector moves
    assert rows == [(150.0, "hot_copy"), (0.0, "no_copy")]
