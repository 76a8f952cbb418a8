import Glibc
import WharfJSONRPC
import WharfSystem

/// Hosts one session over this process's standard input and output, the way an editor spawns
/// a language server, and owns what belongs to the process: its exit status, `SIGTERM` and
/// `SIGINT`, and the editor it was started by (`initialize.processId`): when that process is
/// gone, so are we.
public enum StdioHost {
    public static func run(_ options: ServerOptions) -> Never {
        ProcessControl.ignoreBrokenPipes()
        // Before any thread exists, so every later thread inherits the mask and a signal that
        // arrives during start-up waits for the signal thread instead of being lost.
        ProcessControl.blockEndSignals()
        SpinBeforeSleep.microseconds = options.spinMicroseconds
        let output: FileDescriptor
        do {
            output = try ProcessControl.takeStandardOutput()
        } catch {
            fail("cannot take standard output for the protocol: \(error)")
        }
        let logger = makeLogger(options)
        let server: Server
        do {
            server = try Server(options: options, logger: logger)
        } catch {
            fail(error.message, status: error.exitStatus)
        }
        let connection = Connection(
            input: ProcessControl.takeStandardInput(),
            output: output,
            options: options.connectionOptions,
            logger: logger
        )
        let events = SessionEvents(
            started: { session in
                startThread {
                    let number = ProcessControl.waitForEndSignal()
                    logger.info("signal \(number)")
                    endProcess(session, server, exitCode: session.exitCodeForEndOfInput, reason: "signal \(number)")
                }
            },
            clientProcess: { session, pid in
                // A process that is not there from the start is one we cannot see (the editor
                // in another PID namespace: a Flatpak's, a container's), not one that died:
                // ending at once would end every session such an editor starts.
                guard ProcessIdentity.exists(pid) else {
                    logger.warning("initialize.processId \(pid) is no process this wharf can see (another PID namespace?); not watching it")
                    return
                }
                watch(pid, session, server, logger)
            }
        )
        let code = server.serve(connection, events: events)
        exitOnce(server, code)
    }

    /// Ends the session from outside its read loop: the process ends with it, with the status
    /// the session ended with (`exit` may have decided it first).
    private static func endProcess(_ session: ClientSession, _ server: Server, exitCode: Int32, reason: String) -> Never {
        session.end(exitCode: exitCode, reason: reason)
        exitOnce(server, session.waitUntilEnded())
    }

    /// The read loop returns when the session ends, however it ends, so the main thread and the
    /// thread that ended the session (a signal, the parent gone) both come here: one exits.
    private static let exiting = Locked(false)

    private static func exitOnce(_ server: Server, _ code: Int32) -> Never {
        let first = exiting.withValue { exiting -> Bool in
            defer { exiting = true }
            return !exiting
        }
        guard first else {
            while true { ProcessControl.sleep(milliseconds: 1000) }
        }
        server.close()
        ProcessControl.exit(code)
    }

    /// Checks every 200 ms whether the editor that started us still runs.
    private static func watch(_ pid: Int32, _ session: ClientSession, _ server: Server, _ logger: Logger) {
        TimerQueue.shared.after(milliseconds: 200) {
            guard ProcessIdentity.exists(pid) else {
                logger.warning("process \(pid) that started us is gone; ending")
                endProcess(session, server, exitCode: session.exitCodeForEndOfInput, reason: "parent process \(pid) exited")
            }
            watch(pid, session, server, logger)
        }
    }

    static func makeLogger(_ options: ServerOptions) -> Logger {
        guard let path = options.logFile else { return Logger(level: options.logLevel) }
        do {
            let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
            file.relinquish()  // the logger writes to it until the process ends
            return Logger(level: options.logLevel, descriptor: file.raw)
        } catch {
            fail("--log-file: \(error)")
        }
    }

    static func fail(_ message: String, status: Int32 = 2) -> Never {
        Logger(level: .error).error(message)
        ProcessControl.exit(status)
    }
}
