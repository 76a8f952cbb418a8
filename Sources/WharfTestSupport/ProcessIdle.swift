import Glibc
import WharfSystem

/// Waits until `pid` has used no CPU for a few samples in a row: it has done all it can
/// (say, blocked on clients that do not read). The kernel counts CPU time in ticks, so
/// there is nothing to wait on but the count standing still; the samples are that wait.
/// Answers false if it was still busy at the deadline.
@discardableResult
public func waitUntilIdle(_ pid: pid_t, deadline seconds: Double = 60) -> Bool {
    func cpuTicks() -> UInt64? { ProcessStat.read(pid)?.cpuTicks }
    let deadline = Deadline(secondsFromNow: seconds)
    var last = cpuTicks(), still = 0
    while still < 4 && !deadline.hasPassed {
        ProcessControl.sleep(milliseconds: 50)
        let now = cpuTicks()
        still = now == last ? still + 1 : 0
        last = now
    }
    return still >= 4
}
