#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import WharfDocs
import WharfServer

// wharf-docs: writes what `make install` ships beside the binary, from the sources they are
// rendered from: the manual page wharf.1 and the shell completions from wharf's command-line
// reference (the one `wharf --help` comes from), and wharf-protocol.7 from the protocol's
// Markdown. A separate tool rather than a hidden `wharf` command, so the installed binary
// carries no renderer and no command its own reference would have to leave out; it builds from
// the same modules as the release `wharf`, so it costs one more link.
let usage = "usage: wharf-docs man | bash | zsh | fish | protocol-man < protocol/README.md"
let arguments = Array(CommandLine.arguments.dropFirst())

func readStandardInput() -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(0, &buffer, buffer.count)
        if count <= 0 { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

switch arguments.first {
case "man" where arguments.count == 1:
    print(ManualPage.render(.wharf, version: ServerInfo.version), terminator: "")
case "bash" where arguments.count == 1:
    print(BashCompletion.render(.wharf), terminator: "")
case "zsh" where arguments.count == 1:
    print(ZshCompletion.render(.wharf), terminator: "")
case "fish" where arguments.count == 1:
    print(FishCompletion.render(.wharf), terminator: "")
case "protocol-man" where arguments.count == 1:
    let page = MarkdownManualPage(
        name: "wharf-protocol", section: "7",
        tagline: "the JSON-RPC protocol of wharf, SwiftUI-style file dialogs for editors",
        source: "wharf \(ServerInfo.version)", manual: "Wharf"
    )
    print(page.render(readStandardInput()), terminator: "")
default:
    var message = usage + "\n"
    message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(2)
}
