"""What a test learns of processes from /proc: the ones a process started, by name, and whether
one still runs. For the suites that check a presenter's tools end with their dialog (the
portal's xterm and zenity, a file manager's lf)."""
import os


def status_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first, then the parent), or
    None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def children(pid: int, name: str) -> list[int]:
    """The processes under `pid` (at any depth) called `name`, ended ones not yet waited for
    among them."""
    found, parents = [], {pid}
    for _ in range(4):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            fields = status_fields(int(entry))
            try:
                with open(f"/proc/{entry}/comm") as comm:
                    command = comm.read().strip()
            except OSError:
                continue
            if fields and int(fields[1]) in parents:
                parents.add(int(entry))
                if command == name and int(entry) not in found:
                    found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie has ended)."""
    fields = status_fields(pid)
    return fields is not None and fields[0] != "Z"
