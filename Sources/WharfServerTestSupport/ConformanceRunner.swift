import Glibc
import WharfTestSupport
import WharfJSON
import WharfSystem

/// Replays one conformance transcript against the built `wharf` binary, through a `WireClient`
/// (so every message the server sends is also checked against the protocol schema).
///
/// A failed step ends the run: later steps usually depend on what it should have produced.
public final class ConformanceRunner {
    public let transcript: ConformanceTranscript
    /// How long to wait for one message before calling it missing: a guard against hanging.
    public var messageTimeout: Double = 10
    /// Replays through `wharf --connect` instead: the bridge starts a daemon (with the
    /// transcript's arguments and environment) on a socket of its own and hands it the
    /// streams, so the transcript checks that the bridge is `wharf` over standard I/O.
    public var bridged = false

    private var captures: ConformancePattern.Captures = [:]
    /// Messages read (by `expectNone`) but not yet taken by an `expect`.
    private var pending: [JSON] = []
    private var markers = 0

    public init(_ transcript: ConformanceTranscript) { self.transcript = transcript }

    /// Runs every step; the failures, empty when the server behaved as the transcript says.
    public func run() -> [String] {
        let scratch: ConformanceScratch
        do {
            scratch = try ConformanceScratch(fixtures: transcript.fixtures)
        } catch {
            return ["\(transcript.name): \(error)"]
        }
        var arguments = transcript.arguments.compactMap {
            ConformancePattern.substitutePaths($0, fixtures: scratch.fixtures).stringValue
        }
        if bridged { arguments = ["--connect=\(scratch.state)/wharf.sock", "--idle-timeout=2"] + arguments }
        let client: WireClient
        do {
            client = try WireClient.spawn(arguments, framing: transcript.framing,
                                          environment: transcript.environment.merging(["XDG_STATE_HOME": scratch.state]) { $1 },
                                          removing: transcript.unsetEnvironment)
        } catch {
            return ["\(transcript.name): cannot start wharf: \(error)"]
        }
        defer {
            if case .process(let child) = client.server, client.waitForExit(timeout: 0) == nil { child.kill() }
        }
        for (index, rawStep) in transcript.steps.enumerated() {
            let step = ConformancePattern.substitutePaths(rawStep, fixtures: scratch.fixtures)
            if let failure = perform(step, on: client) {
                let comment = step["comment"]?.stringValue.map { " (\($0))" } ?? ""
                let stderr = client.standardError()
                return ["\(transcript.name), step \(index + 1)\(comment): \(failure)"
                    + (stderr.isEmpty ? "" : "\n  wharf's standard error:\n\(stderr)")]
            }
        }
        return []
    }

    /// Performs one step; a description of what went wrong, or nil.
    private func perform(_ step: JSON, on client: WireClient) -> String? {
        if let message = step["send"] {
            var missing: [String] = []
            let resolved = ConformancePattern.substituteCaptures(message, captures, missing: &missing)
            if !missing.isEmpty { return "the transcript uses \(missing.joined(separator: ", ")) before binding it" }
            client.send(resolved)
        } else if let body = step["sendBody"]?.stringValue {
            client.sendBody(Array(body.utf8))
        } else if let raw = step["sendRaw"]?.stringValue {
            client.sendRaw(raw)
        } else if let pattern = step["expect"] {
            guard let message = next(from: client) else { return "expected \(pattern.jsonText), but nothing came" }
            guard ConformancePattern.matches(message, pattern, &captures) else {
                return "expected \(pattern.jsonText)\n  got \(message.jsonText)"
            }
        } else if let patterns = step["expectAll"]?.arrayValue {
            var messages: [JSON] = []
            for _ in patterns {
                guard let message = next(from: client) else {
                    return "expected \(patterns.count) messages matching \(JSON.array(patterns).jsonText) in any order, got only \(JSON.array(messages).jsonText)"
                }
                messages.append(message)
            }
            guard ConformancePattern.matchInterleaved(messages, patterns, &captures) else {
                return "expected messages matching \(JSON.array(patterns).jsonText) (responses anywhere, the rest in order)\n  got \(JSON.array(messages).jsonText)"
            }
        } else if let pattern = step["expectSome"] {
            var count = 0
            while let message = next(from: client) {
                guard ConformancePattern.matches(message, pattern, &captures) else {
                    pending.insert(message, at: 0)
                    break
                }
                count += 1
            }
            if count == 0 { return "expected one or more messages matching \(pattern.jsonText)" + (pending.first.map { "\n  got \($0.jsonText)" } ?? ", but nothing came") }
        } else if let pattern = step["expectNone"] {
            return expectNone(pattern, on: client)
        } else if step["closeInput"] != nil {
            client.closeInput()
        } else if let name = step["signal"]?.stringValue {
            guard case .process(let child) = client.server else { return "no process to signal" }
            switch name {
            case "TERM": child.kill(SIGTERM)
            case "INT": child.kill(SIGINT)
            default: return "unknown signal \(name)"
            }
        } else if let expected = step["exit"]?.intValue {
            guard let code = client.waitForExit(timeout: messageTimeout) else { return "wharf did not exit" }
            guard Int64(code) == expected else { return "wharf exited with status \(code), expected \(expected)" }
            guard client.waitForEndOfOutput(timeout: messageTimeout) else { return "wharf's output stayed open after it exited" }
            while let message = client.nextMessage(timeout: 0) { pending.append(message) }
            if !pending.isEmpty {
                return "wharf sent messages no step expected: \(pending.map(\.jsonText).joined(separator: "\n  "))"
            }
        } else {
            return "unknown step \(step.jsonText)"
        }
        return nil
    }

    private func next(from client: WireClient) -> JSON? {
        if !pending.isEmpty { return pending.removeFirst() }
        return client.nextMessage(timeout: messageTimeout)
    }

    /// Sends a ping of our own and reads up to its answer; nothing before it may match.
    private func expectNone(_ pattern: JSON, on client: WireClient) -> String? {
        markers += 1
        let marker = JSON.string("conformance-marker-\(markers)")
        client.send(["jsonrpc": "2.0", "id": marker, "method": "ping"])
        while true {
            guard let message = client.nextMessage(timeout: messageTimeout) else {
                return "no answer to the marker ping \(marker.jsonText)"
            }
            if message["id"] == marker && message["method"] == nil { break }
            pending.append(message)
        }
        for message in pending {
            var scratch = captures
            if pattern == .null || ConformancePattern.matches(message, pattern, &scratch) {
                return pattern == .null
                    ? "expected no message, got \(message.jsonText)"
                    : "expected no message matching \(pattern.jsonText), got \(message.jsonText)"
            }
        }
        return nil
    }
}
