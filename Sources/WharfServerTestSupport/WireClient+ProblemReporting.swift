import Testing

extension WireClient {
    /// Records every protocol problem found since the last call as an issue of the running
    /// test, so that a server message the schema does not describe fails the test without the
    /// test asking.
    ///
    /// Called at the end of every method a test uses to wait for or look at what the server
    /// sent (`nextMessage`, `waitFor` and everything built on it, `messages`,
    /// `waitForEndOfOutput`, `waitForExit`). It runs on the test's own thread, inside the
    /// test's task, which is what lets Swift Testing attribute the issue to that test; the
    /// reader thread that finds the problems has no test context, so it only collects them.
    public func reportNewProblems() {
        for problem in takeNewProblems() {
            Issue.record("the server broke the protocol: \(problem)")
        }
    }
}
