import WharfTestSupport

extension ScratchDirectory {
    /// A stand-in `zenity` and `kdialog` in `bin/` (put it first on the server's PATH): each
    /// writes its arguments, one a line, to `arguments` and answers what the file `answer`
    /// holds, as the real tool prints the path a person chose.
    func writeStandInDialogTools(answer: String) {
        makeDirectory("bin")
        for tool in ["zenity", "kdialog"] {
            write("bin/\(tool)", #"""
                #!/bin/sh
                d=$(dirname "$0")/..
                printf '%s\n' "$@" > "$d/arguments"
                cat "$d/\#(answer)"
                """#, mode: 0o755)
        }
    }
}
