import WharfSystem

/// True once `condition` holds, looked at every 5 ms for up to `seconds`: for what a test can
/// only ask about, not be told of (another process's view of a shared store, a daemon's
/// count of connections). The wait is a bound against hanging, never a measurement.
public func eventually(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Deadline(secondsFromNow: seconds)
    while true {
        if condition() { return true }
        if deadline.hasPassed { return false }
        ProcessControl.sleep(milliseconds: 5)
    }
}
