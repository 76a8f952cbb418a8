import Testing
import WharfJSON
import WharfProtocol
import WharfServerTestSupport

/// Each message's reader and protocol/wharf.schema.json name the same fields, field by field:
/// every example is read with a ``FieldLog``, and what the reader asked for (each field's
/// name, whether it must be there, its kind, an integer's range) is compared with the schema's
/// `properties`, `required`, `type`, `minimum` and `maximum` at the same place. The reader is
/// the one list of a message's fields; this is what keeps the schema its copy.
@Suite struct ProtocolFieldsAgreeWithTheSchema {
    let schema = ProtocolSchema.wharf

    @Test(arguments: ProtocolCatalog.requests.map { $0.method })
    func aRequestsParamsAndResultHaveTheSchemasFields(method: String) throws {
        let type = try #require(ProtocolCatalog.requests.first { $0.method == method })
        let entry = try #require(schema.requests[method])
        #expect(problems(params: type, entry) == [])
        #expect(problems(result: type, entry) == [])
    }

    @Test(arguments: ProtocolCatalog.notifications.map { $0.method })
    func aNotificationsParamsHaveTheSchemasFields(method: String) throws {
        let type = try #require(ProtocolCatalog.notifications.first { $0.method == method })
        let entry = try #require(schema.notifications[method])
        #expect(problems(params: type, entry) == [])
    }

    /// The comparison itself fails on a field the schema lacks, one it has that the reader
    /// does not read, a required list, a type and a range that differ.
    @Test func theComparisonSeesEachKindOfDisagreement() throws {
        let fields: JSON = [
            "type": "object",
            "properties": [
                "name": ["type": "string"], "count": ["type": "integer", "minimum": 1, "maximum": 9],
                "flag": ["type": "boolean"], "extra": ["type": "string"],
            ],
            "required": ["name", "flag"],
        ]
        let log = FieldLog()
        var reader = FieldReader(object: ["name": "a", "count": 3, "flag": 2], path: "")
        reader.log = log
        _ = try reader.optionalString("name")
        _ = try reader.int("count", in: 1...10)
        _ = try reader.optionalInt("flag")
        _ = try reader.optionalBool("new")
        let found = compare(log, against: fields, at: "m")
        #expect(found == [
            "m: name: required in the schema, optional in the reader",
            "m: count: required in the reader, optional in the schema",
            "m: count: the reader allows 1...10, the schema 1...9",
            "m: flag: required in the schema, optional in the reader",
            "m: flag: the reader reads integer, the schema says boolean",
            "m: new: read, but not in the schema",
            "m: extra: in the schema, but never read",
        ])
    }

    private func problems<M: ProtocolValue>(params type: M.Type, _ entry: ProtocolSchema.Method) -> [String] {
        guard let params = entry.params else { return [] }
        return problems(reading: type.example, against: params, at: "\(entry.name) params")
    }

    private func problems<R: RequestMessage>(result type: R.Type, _ entry: ProtocolSchema.Method) -> [String] {
        guard let result = entry.result, case .object = R.Result.example.json else { return [] }
        return problems(reading: R.Result.example, against: result, at: "\(entry.name) result")
    }

    private func problems<M: ProtocolValue>(reading example: M, against schema: JSON, at place: String) -> [String] {
        let log = FieldLog()
        do {
            var reader = try FieldReader(params: example.json)
            reader.log = log
            _ = try M(reading: &reader)
        } catch {
            return ["\(place): the example does not read: \(error)"]
        }
        return compare(log, against: schema, at: place)
    }

    /// The log's fields, object by object, against the schema of each object.
    private func compare(_ log: FieldLog, against root: JSON, at place: String) -> [String] {
        var problems: [String] = []
        // The elements of an array are one place (`documents[]`): between them, the example
        // takes each alternative of a `oneOf` once.
        var entries: [FieldLog.Entry] = []
        for var entry in log.entries {
            entry.path = elementsAsOne(entry.path)
            if let index = entries.firstIndex(where: { $0.path == entry.path && $0.key == entry.key }) {
                entries[index].isRequired = entries[index].isRequired && entry.isRequired
            } else {
                entries.append(entry)
            }
        }
        var paths: [String] = []
        for entry in entries where !paths.contains(entry.path) { paths.append(entry.path) }
        for path in paths {
            let entries = entries.filter { $0.path == path }
            let here = path.isEmpty ? place : "\(place) \(path)"
            guard let object = schema(at: path, in: root) else {
                problems.append("\(here): no object at this place in the schema")
                continue
            }
            let properties = self.properties(of: object)
            let (required, sometimes) = self.required(of: object)
            for entry in entries {
                guard let property = properties[entry.key] else {
                    problems.append("\(here): \(entry.key): read, but not in the schema")
                    continue
                }
                // A field that is one of several alternatives is required by `oneOf`, not alone.
                if entry.kind != .presence && !sometimes.contains(entry.key) {
                    if entry.isRequired && !required.contains(entry.key) {
                        problems.append("\(here): \(entry.key): required in the reader, optional in the schema")
                    } else if !entry.isRequired && required.contains(entry.key) {
                        problems.append("\(here): \(entry.key): required in the schema, optional in the reader")
                    }
                }
                let resolved = resolve(property)
                if let expected = types(for: entry.kind), let declared = declaredTypes(of: resolved), declared.isDisjoint(with: expected) {
                    problems.append("\(here): \(entry.key): the reader reads \(entry.kind.rawValue), the schema says "
                                    + declared.sorted().joined(separator: " or "))
                }
                if let range = entry.range {
                    // Int64's own bounds are no bound: JSON Schema has none to give.
                    let minimum = resolved["minimum"]?.intValue ?? Int64.min, maximum = resolved["maximum"]?.intValue ?? Int64.max
                    if minimum != range.lowerBound || maximum != range.upperBound {
                        problems.append("\(here): \(entry.key): the reader allows \(range.lowerBound)...\(range.upperBound), the schema "
                                        + "\(minimum)...\(maximum)")
                    }
                }
            }
            for name in properties.keys.sorted() where !entries.contains(where: { $0.key == name }) {
                problems.append("\(here): \(name): in the schema, but never read")
            }
        }
        return problems
    }

    /// The JSON Schema types a field read as `kind` may have; nil: any.
    private func types(for kind: FieldKind) -> Set<String>? {
        switch kind {
        case .presence, .any: return nil
        case .string, .identifier: return ["string"]
        case .bool: return ["boolean"]
        case .integer: return ["integer", "number"]
        case .strings, .objects: return ["array"]
        case .object, .stringMap: return ["object"]
        }
    }

    /// The types a property's schema declares, through `$ref`s and alternatives; nil: any.
    private func declaredTypes(of property: JSON) -> Set<String>? {
        var found = Set<String>()
        switch property["type"] {
        case .string(let type)?: found.insert(type)
        case .array(let types)?: for case .string(let type) in types { found.insert(type) }
        default: break
        }
        for key in ["oneOf", "anyOf"] {
            for alternative in property[key]?.arrayValue ?? [] {
                guard let types = declaredTypes(of: resolve(alternative)) else { return nil }
                found.formUnion(types)
            }
        }
        found.remove("null")
        return found.isEmpty ? nil : found
    }

    /// The object schema at a reader's path (`options`, `documents[0]`, `clientInfo`).
    private func schema(at path: String, in root: JSON) -> JSON? {
        var current = resolve(root)
        guard !path.isEmpty else { return current }
        for component in path.split(separator: ".") {
            var name = Substring(component)
            var indexed = false
            if name.hasSuffix("[]") {
                name = name.dropLast(2)
                indexed = true
            }
            guard let property = properties(of: current)[String(name)] else { return nil }
            current = resolve(property)
            if indexed {
                guard let items = current["items"] else { return nil }
                current = resolve(items)
            }
        }
        return current
    }

    /// An object schema's properties, with those of its `oneOf`/`anyOf`/`allOf` alternatives.
    private func properties(of object: JSON) -> [String: JSON] {
        var result: [String: JSON] = [:]
        for (key, value) in object["properties"]?.objectValue ?? JSONObject() { result[key] = value }
        for key in ["oneOf", "anyOf", "allOf"] {
            for alternative in object[key]?.arrayValue ?? [] {
                result.merge(properties(of: resolve(alternative))) { mine, _ in mine }
            }
        }
        return result
    }

    /// The fields an object schema requires outright, and those only some of its `oneOf` or
    /// `anyOf` alternatives require.
    private func required(of object: JSON) -> (always: Set<String>, sometimes: Set<String>) {
        var always = Set((object["required"]?.arrayValue ?? []).compactMap(\.stringValue))
        var sometimes = Set<String>()
        for alternative in object["allOf"]?.arrayValue ?? [] {
            let (more, some) = required(of: resolve(alternative))
            always.formUnion(more)
            sometimes.formUnion(some)
        }
        for key in ["oneOf", "anyOf"] {
            guard let alternatives = object[key]?.arrayValue, !alternatives.isEmpty else { continue }
            let each = alternatives.map { required(of: resolve($0)) }
            let inAll = each.dropFirst().reduce(each[0].always) { $0.intersection($1.always) }
            always.formUnion(inAll)
            for one in each { sometimes.formUnion(one.always.union(one.sometimes).subtracting(inAll)) }
        }
        return (always, sometimes.subtracting(always))
    }

    /// `documents[0].contents` as `documents[].contents`.
    private func elementsAsOne(_ path: String) -> String {
        var result = ""
        var inIndex = false
        for character in path {
            if character == "[" { inIndex = true; result.append("[") }
            else if character == "]" { inIndex = false; result.append("]") }
            else if !inIndex { result.append(character) }
        }
        return result
    }

    private func resolve(_ value: JSON) -> JSON {
        var value = value
        while let reference = value["$ref"]?.stringValue, reference.hasPrefix("#/") {
            var target = schema.document
            for part in reference.dropFirst(2).split(separator: "/") { target = target[String(part)] ?? .null }
            value = target
        }
        return value
    }
}
