#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfServer

// The `wharf` executable: parse the command line, then serve or run a subcommand.
do {
    switch try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help:
        print(CommandLineParser.usage)
    case .version:
        print("wharf \(ServerInfo.version) (protocol \(ServerInfo.protocolVersion))")
    case .serve(let options):
        StdioServer.run(options)
    case .types(let command):
        exit(Subcommands.run(command))
    case .access(let command, let stateDirectory):
        exit(Subcommands.run(command, stateDirectory: stateDirectory))
    }
} catch {
    var message = "wharf: \(error)\nTry 'wharf --help'.\n"
    message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(2)
}
