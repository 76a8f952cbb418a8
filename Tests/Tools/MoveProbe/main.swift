// wharf-move-probe: drives FileMover from the command line, for the tests that kill a move at
// each of its steps (kill -9 needs a process of its own) and for the move benchmark.
//
//   wharf-move-probe [options] --into FOLDER SOURCE...
//   options: --replace | --keep-both  what to do with a name already taken (default: fail)
//            --hold-at N              at the Nth step (1-based), print "holding N STEP" and wait
//                                     there forever (to be killed)
//            --steps                  print "step N STEP" as each step is reached
//            --progress               print "progress <written> <total>" for each report
//   or:      --remove-orphans DIR     sweep DIR and print each path removed
//
// Prints "ok" and the new paths, one a line, or the error; exits 0 (moved), 1 (failed),
// 2 (name conflict), 3 (cancelled), 4 (source changed), 5 (unsupported file type), 64 (usage).
import Glibc
import WharfFileWriting
import WharfSystem
import WharfTestSupport

var arguments = Array(CommandLine.arguments.dropFirst())
var resolution = MoveConflictResolution.fail
var holdAt = 0
var showSteps = false
var showProgress = false
var folder: FilePath?
var sources: [FilePath] = []
@MainActor func nextPath(_ what: String) -> FilePath {
    guard !arguments.isEmpty, let path = FilePath(arguments.removeFirst()) else { usage("missing \(what)") }
    return path
}
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--remove-orphans":
        for path in AtomicWriter.removeOrphans(in: nextPath("directory")) { say(path.description) }
        exit(0)
    case "--replace": resolution = .replace
    case "--keep-both": resolution = .keepBoth
    case "--steps": showSteps = true
    case "--progress": showProgress = true
    case "--hold-at":
        guard !arguments.isEmpty, let number = Int(arguments.removeFirst()), number > 0 else { usage("--hold-at needs a number") }
        holdAt = number
    case "--into": folder = nextPath("folder")
    default:
        guard let path = FilePath(argument), !argument.hasPrefix("--") else { usage("unknown argument \(argument)") }
        sources.append(path)
    }
}
guard let folder, !sources.isEmpty else { usage("--into FOLDER SOURCE...") }

let counter = Locked(0)
let hold = holdAt
let steps = showSteps
let printing = showProgress
do {
    let moved = try FileMover.move(
        sources.map { MoveItem(source: $0) }, into: folder, resolution: resolution,
        progress: { progress in
            if printing { say("progress \(progress.bytesWritten) \(progress.totalBytes)") }
        },
        cancellation: nil,
        observer: { step in
            let number = counter.withValue { count -> Int in
                count += 1
                return count
            }
            if steps { say("step \(number) \(step)") }
            if number == hold {
                say("holding \(number) \(step)")
                while true { pause() }
            }
        }
    )
    say("ok")
    for path in moved { say(path.description) }
    exit(0)
} catch {
    say(error.description)
    switch error {
    case .failed: exit(1)
    case .nameConflict: exit(2)
    case .cancelled: exit(3)
    case .sourceChanged: exit(4)
    case .unsupportedFileType: exit(5)
    }
}
