#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfJSONRPC
import WharfSystem

/// Runs one session over this process's standard input and output, then exits.
public enum StdioServer {
    public static func run(_ options: ServerOptions) -> Never {
        // A reader that closes our output must not kill us: writes then fail with EPIPE and the
        // session ends cleanly.
        signal(SIGPIPE, SIG_IGN)
        // SIGTERM and SIGINT are blocked before any thread exists (every later thread inherits
        // the mask) and taken by one thread with sigwait: a signal that arrives during start-up
        // stays pending until that thread takes it, instead of being lost.
        var endSignals = sigset_t()
        sigemptyset(&endSignals)
        sigaddset(&endSignals, SIGTERM)
        sigaddset(&endSignals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &endSignals, nil)

        // Protocol bytes go to a private copy of standard output; descriptor 1 becomes standard
        // error, so a stray print from any library can never corrupt the stream.
        let protocolOutput = dup(1)
        guard protocolOutput >= 0 else { fail("cannot duplicate standard output: \(SystemError.current("dup"))") }
        _ = fcntl(protocolOutput, F_SETFD, FD_CLOEXEC)
        dup2(2, 1)

        let logger = makeLogger(options)
        let server: Server
        do {
            server = try Server(options: options, logger: logger)
        } catch {
            fail(error.message)
        }
        let connection = Connection(
            input: 0,
            output: protocolOutput,
            options: Connection.Options(framing: options.framing, maxMessageBytes: options.maxMessageBytes),
            logger: logger
        )
        let session = ClientSession(server: server, connection: connection) { code in
            // This process's grants and leases go with it (bookmarks stay).
            server.access.close()
            exit(code)
        }

        // SIGTERM and SIGINT end the session as end of input does.
        let waitSet = endSignals
        startThread {
            var set = waitSet
            var number: Int32 = 0
            while sigwait(&set, &number) != 0 {}
            logger.info("signal \(number)")
            session.finish(exitCode: session.exitCodeForEndOfInput, reason: "signal \(number)")
        }
        let reason = connection.run(session.handler)
        switch reason {
        case .endOfInput:
            session.finish(exitCode: session.exitCodeForEndOfInput, reason: "end of input")
        case .truncated:
            logger.error("input ended in the middle of a message")
            session.finish(exitCode: 1, reason: "truncated input")
        case .readFailed(let error):
            logger.error("reading standard input failed: \(error)")
            session.finish(exitCode: 1, reason: "read error")
        case .writeFailed:
            session.finish(exitCode: session.exitCodeForEndOfInput, reason: "output closed")
        }
        // `finish` exits; if another thread is finishing already, wait for it to.
        while true { pause() }
    }

    private static func makeLogger(_ options: ServerOptions) -> Logger {
        guard let path = options.logFile else { return Logger(level: options.logLevel) }
        do {
            let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
            file.relinquish()  // the logger writes to it until the process ends
            return Logger(level: options.logLevel, descriptor: file.raw)
        } catch {
            fail("--log-file: \(error)")
        }
    }

    static func fail(_ message: String) -> Never {
        Logger(level: .error).error(message)
        exit(2)
    }
}
