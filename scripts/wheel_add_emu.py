"""Put the real-time emulator into a built wheel, as a script pip installs beside ``accelbrake``.

    python scripts/wheel_add_emu.py dist/accelbrake-*.whl target/release/accelbrake-emu

The binary goes to ``<name>-<version>.data/scripts/accelbrake-emu`` (mode 755) and the wheel's
RECORD gets its hash and size (PEP 427). ``make wheel`` runs this after maturin: maturin's own
``data`` setting would make every build, an editable install's too, fail where the binary has not
been built."""

from __future__ import annotations

import base64
import hashlib
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path


def add_script(wheel: Path, binary: Path, name: str = "accelbrake-emu") -> str:
    """Add (or replace) ``binary`` as the wheel's script ``name``; returns its path in the wheel."""
    data = binary.read_bytes()
    mode = wheel.stat().st_mode & 0o777
    with zipfile.ZipFile(wheel) as z:
        infos = z.infolist()
        record = next(i.filename for i in infos if i.filename.endswith(".dist-info/RECORD"))
        stem = record.split(".dist-info/")[0]
        target = f"{stem}.data/scripts/{name}"
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines = [
            ln
            for ln in z.read(record).decode().splitlines()
            if ln and not ln.startswith(target + ",") and not ln.startswith(record + ",")
        ]
        lines += [f"{target},sha256={digest},{len(data)}", f"{record},,"]
        with tempfile.NamedTemporaryFile(dir=wheel.parent, suffix=".whl", delete=False) as tmp:
            out = Path(tmp.name)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as w:
            for i in infos:
                if i.filename in (target, record):
                    continue
                w.writestr(i, z.read(i.filename))
            info = zipfile.ZipInfo(target, date_time=infos[0].date_time)
            info.external_attr = (0o100755 & 0xFFFF) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            w.writestr(info, data)
            w.writestr(zipfile.ZipInfo(record, date_time=infos[0].date_time), "\n".join(lines) + "\n")
    shutil.move(out, wheel)
    wheel.chmod(mode)  # the temporary file's 0600 would hide the wheel from other users
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    wheel, binary = Path(argv[1]), Path(argv[2])
    for p in (wheel, binary):
        if not p.is_file():
            print(f"wheel_add_emu: {p}: no such file", file=sys.stderr)
            return 2
    print(f"{wheel}: added {add_script(wheel, binary)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
