import CSQLite
import WharfSystem

/// Changes to the session state that the store has not seen yet, coalesced: a grant refreshed
/// ten times before the next batch is written once, a lease started and released in between is
/// never written at all.
struct PendingChanges {
    var registerInstance = false
    /// Local ids of grants to insert or update.
    var grants: Set<Int> = []
    /// Row ids of grants to delete (ones never written are simply forgotten).
    var deletedGrants: Set<Int64> = []
    /// Grant rows whose revocation records this process has judged (their records go).
    var judgedRevocations: Set<Int64> = []
    /// Access ids of leases to insert, and to delete.
    var leases: Set<String> = []
    var deletedLeases: Set<String> = []
    /// (app, customization id) → folder.
    var rememberedDirectories: [RememberedKey: (FilePath, Double)] = [:]

    var isEmpty: Bool {
        !registerInstance && grants.isEmpty && deletedGrants.isEmpty && judgedRevocations.isEmpty && leases.isEmpty
            && deletedLeases.isEmpty && rememberedDirectories.isEmpty
    }
}

/// Compared and hashed by UTF-8 bytes, as the store compares them: Swift's own `==` and hashing
/// of `String` follow canonical equivalence, which would take `café` with a combining accent for
/// `café` precomposed (two apps) and hand one the folder the other remembered.
struct RememberedKey: Hashable, Sendable {
    var app: String
    var customizationId: String

    static func == (left: RememberedKey, right: RememberedKey) -> Bool {
        left.app.utf8.elementsEqual(right.app.utf8) && left.customizationId.utf8.elementsEqual(right.customizationId.utf8)
    }

    func hash(into hasher: inout Hasher) {
        for text in [app, customizationId] {
            hasher.combine(text.utf8.count)
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }
}

/// The queue of pending changes and the state of the batch writer. Writing happens on a pool
/// thread, a few milliseconds after the first change (so a burst becomes one transaction).
///
/// `@unchecked Sendable`: every `var` below is read and written with `lock` held.
final class WriteBehind: @unchecked Sendable {
    let lock = ConditionLock()
    // Guarded by `lock`.
    var changes = PendingChanges()
    var scheduled = false
    var writing = false
    /// After a failed batch, the next try waits this long (doubling up to a few seconds).
    var retryDelay = 0

    /// How long a change waits for company before its batch is written.
    static let gatherMilliseconds = 5

    /// Nothing is waiting to be written, nor being written.
    var isEmpty: Bool {
        lock.withLock { changes.isEmpty && !scheduled && !writing }
    }

    /// Every change so far is in the store (a batch may still be scheduled, with nothing in it).
    var isWritten: Bool {
        lock.withLock { changes.isEmpty && !writing }
    }

    func registerInstance() {
        lock.withLock { changes.registerInstance = true }
    }

    func change(_ body: (inout PendingChanges) -> Void) {
        lock.withLock { body(&changes) }
    }
}

extension AccessStore {
    /// Arranges for pending changes to be written soon, off every caller's thread.
    func scheduleFlush() {
        let (start, delay) = pending.lock.withLock { () -> (Bool, Int) in
            if pending.scheduled || pending.changes.isEmpty { return (false, 0) }
            pending.scheduled = true
            return (true, max(WriteBehind.gatherMilliseconds, pending.retryDelay))
        }
        guard start else { return }
        // The timer hands the batch on: writing may wait for another process's lock on the
        // database, and the timers' pool is for work that never waits.
        TimerQueue.shared.after(milliseconds: delay) { [weak self] in
            WorkerPool.blocking.run { [weak self] in
                guard let self else { return }
                self.pending.lock.withLock { self.pending.scheduled = false }
                self.writePending()
            }
        }
    }

    /// Writes everything pending now and waits until it is written (or the store refused it:
    /// then it stays pending, and the failure is reported). For the end of a session and for
    /// tests; request handlers never wait for it.
    public func flush() {
        // A batch being written already took only what was pending when it started: wait for
        // it, then write what came since. (Writing first returned at once while another batch
        // was under way, and a lease started just before was left unwritten.)
        pending.lock.withLock {
            while pending.writing { pending.lock.wait() }
        }
        writePending()
        pending.lock.withLock {
            while pending.writing { pending.lock.wait() }
        }
    }

    /// Takes the pending changes and writes them as one transaction. One writer at a time;
    /// changes made meanwhile wait for the next batch.
    func writePending() {
        let taken = pending.lock.withLock { () -> PendingChanges? in
            if pending.writing || pending.changes.isEmpty { return nil }
            pending.writing = true
            let taken = pending.changes
            pending.changes = PendingChanges()
            return taken
        }
        guard let taken else { return }
        var failure: AccessError?
        do throws(AccessError) {
            try writeBatch(taken)
        } catch {
            failure = error
        }
        pending.lock.withLock {
            if failure != nil {
                // Keep the batch for the next try: merge it back under what came since.
                merge(taken, into: &pending.changes)
                pending.retryDelay = min(max(pending.retryDelay * 2, 100), 5_000)
            } else {
                pending.retryDelay = 0
            }
            pending.writing = false
            pending.lock.broadcast()
        }
        if let failure {
            report("could not write the session state to \(databasePath) (will retry): \(failure)")
        }
        scheduleFlush()
    }

    private func merge(_ old: PendingChanges, into changes: inout PendingChanges) {
        changes.registerInstance = changes.registerInstance || old.registerInstance
        changes.grants.formUnion(old.grants)
        changes.deletedGrants.formUnion(old.deletedGrants)
        changes.judgedRevocations.formUnion(old.judgedRevocations)
        changes.leases.formUnion(old.leases.subtracting(changes.deletedLeases))
        changes.deletedLeases.formUnion(old.deletedLeases)
        for (key, value) in old.rememberedDirectories where changes.rememberedDirectories[key] == nil {
            changes.rememberedDirectories[key] = value
        }
    }

    /// One transaction: the instance row, grants, leases, remembered folders. A grant whose row
    /// another process deleted (`wharf access revoke`), or whose bookmark it deleted, is
    /// revoked here too, unless it was given again after the revocation.
    private func writeBatch(_ changes: PendingChanges) throws(AccessError) {
        // What to write, copied from the session state now (a grant changed since it was
        // queued is written as it is now; one removed since is skipped).
        let (grants, leases) = sessions.withValue { state -> ([Grant], [(LeaseState, Int64?)]) in
            let grants = changes.grants.compactMap { state.grants[$0] }
            let leases = changes.leases.compactMap { id -> (LeaseState, Int64?)? in
                guard let lease = state.leases[id] else { return nil }
                return (lease, nil)
            }
            return (grants, leases)
        }
        var rowIds: [Int: Int64] = [:]
        var revoked: [Int] = []
        /// Grants given again after their rows were revoked.
        var givenAgain: Set<Int> = []
        try write { db in
            // Grant and lease rows hang off this process's instance row: make sure it exists
            // in the batch that writes them (a batch taken before the database finished
            // opening carries no registration of its own). Dead processes are swept once.
            if changes.registerInstance || !grants.isEmpty || !leases.isEmpty {
                let me = ProcessIdentity.current()
                try db.run("INSERT OR IGNORE INTO instances (id, pid, process_start, started) VALUES (?, ?, ?, ?)",
                           [.text(instance), .integer(Int64(me.pid)), .integer(Int64(me.startTime)),
                            .real(StateLocation.now())])
            }
            if changes.registerInstance {
                try Self.deleteDeadInstances(db, except: instance)
            }
            for row in changes.deletedGrants {
                try db.run("DELETE FROM grants WHERE id = ? AND instance = ?", [.integer(row), .text(instance)])
            }
            for row in changes.judgedRevocations {
                try Self.forgetRevocation(db, of: row, instance: instance)
            }
            for grant in grants {
                let written = try Self.writeGrant(db, grant, instance: instance)
                if let row = written.row { rowIds[grant.id] = row } else { revoked.append(grant.id) }
                if written.row != nil && written.renewed { givenAgain.insert(grant.id) }
            }
            for accessId in changes.deletedLeases {
                try db.run("DELETE FROM leases WHERE access_id = ?", [.text(accessId)])
            }
            for (lease, _) in leases {
                let grantRow = lease.grantId.flatMap { id in rowIds[id] ?? self.sessions.withValue { $0.grants[id]?.rowId } }
                try Self.insertLease(db, lease, grantRow: grantRow, instance: instance)
            }
            for (key, (directory, updated)) in changes.rememberedDirectories {
                try db.run("""
                    INSERT INTO remembered_directories (app, customization_id, directory, updated) VALUES (?, ?, ?, ?)
                    ON CONFLICT (app, customization_id) DO UPDATE SET directory = excluded.directory, updated = excluded.updated
                    """, [.text(key.app), .text(key.customizationId), .path(directory), .real(updated)])
            }
        }
        // Grants and leases that went while the batch was being written (a session ended, a
        // lease was released, access was revoked) had no row to delete when they went; the
        // rows just written for them are deleted by the next batch.
        let (goneGrantRows, goneLeases) = sessions.withValue { state -> ([Int64], [String]) in
            state.batchesWritten += 1
            var goneGrantRows: [Int64] = []
            for (id, row) in rowIds {
                if state.grants[id] == nil { goneGrantRows.append(row); continue }
                if givenAgain.contains(id) { state.renewAfterRevocation(id) }
                state.grants[id]?.rowId = row
                state.grants[id]?.writtenIn = state.batchesWritten
            }
            for id in revoked { state.remove(grant: id) }
            var goneLeases: [String] = []
            for (lease, _) in leases {
                if state.leases[lease.accessId] != nil { state.update(lease: lease.accessId) { $0.written = true } } else { goneLeases.append(lease.accessId) }
            }
            return (goneGrantRows, goneLeases)
        }
        if !goneGrantRows.isEmpty || !goneLeases.isEmpty {
            pending.change { changes in
                changes.deletedGrants.formUnion(goneGrantRows)
                changes.deletedLeases.formUnion(goneLeases)
            }
            scheduleFlush()
        }
    }

    /// Inserts a grant not written before, or updates its row. Answers the row id, or nil when
    /// the grant was revoked meanwhile (its row is gone, or its bookmark is). A grant given
    /// again after its row was revoked gets a new row holding its latest gift (`renewed`).
    private static func writeGrant(_ db: SQLiteConnection, _ grant: Grant, instance: String) throws
        -> (row: Int64?, renewed: Bool) {
        func facts(_ grant: Grant) -> [SQLiteValue] {
            SQLiteValue.fingerprint(grant.fingerprint)
                + [.bool(grant.isDirectory), .bool(grant.readOnly), .optional(grant.bookmarkId), .bool(grant.isSymlink)]
        }
        if let row = grant.rowId {
            // Matched by instance too: row ids are never given twice now (`grant_ids`), but a
            // store written before version 4 may have given one again to another process.
            let updated = try db.run("""
                UPDATE grants SET device = ?, inode = ?, file_system = ?, birth = ?, is_directory = ?, read_only = ?,
                                  bookmark_id = ?, is_symlink = ?
                WHERE id = ? AND instance = ?
                """, facts(grant) + [.integer(row), .text(instance)])
            if updated == 1 { return (row, false) }
            let revoked = try revocationTime(db, of: row, instance: instance)
            try forgetRevocation(db, of: row, instance: instance)
            guard let revoked, revoked < grant.latestGift.time else { return (nil, false) }
            var renewed = grant
            renewed.readOnly = grant.latestGift.readOnly
            renewed.bookmarkId = grant.latestGift.bookmarkId
            return (try insertGrant(db, renewed, facts(renewed), instance: instance), true)
        }
        return (try insertGrant(db, grant, facts(grant), instance: instance), false)
    }

    /// Inserts a grant's row (or updates the one this instance has for the client and path).
    /// Answers nil when the bookmark it came from is gone. A new row's id is one never used
    /// before (`grant_ids`, see ``Schema/version4``).
    private static func insertGrant(_ db: SQLiteConnection, _ grant: Grant, _ facts: [SQLiteValue], instance: String) throws -> Int64? {
        let id = try db.first("""
            UPDATE grant_ids SET last = max(last, (SELECT coalesce(max(id), 0) FROM grants)) + 1 RETURNING last
            """) { $0.int(0) }
        do {
            return try db.first("""
                INSERT INTO grants (id, instance, client, app, path, device, inode, file_system, birth, is_directory,
                                    read_only, bookmark_id, is_symlink, created)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (instance, client, path) DO UPDATE SET
                    device = excluded.device, inode = excluded.inode, file_system = excluded.file_system,
                    birth = excluded.birth, is_directory = excluded.is_directory, read_only = excluded.read_only,
                    bookmark_id = excluded.bookmark_id, is_symlink = excluded.is_symlink
                RETURNING id
                """, [.optional(id), .text(instance), .text(grant.client.rawValue), .text(grant.app), .path(grant.path)] + facts
                + [.real(grant.created)], map: { $0.int(0) })
        } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
            // The bookmark it came from was deleted (revoked) before the grant was written.
            return nil
        }
    }

    private static func insertLease(_ db: SQLiteConnection, _ lease: LeaseState, grantRow: Int64?, instance: String) throws {
        try db.run("""
            INSERT OR IGNORE INTO leases (access_id, instance, client, grant_id, path, anchor, device, inode, file_system,
                                          birth, is_directory, read_only, created)
            VALUES (?, ?, ?, (SELECT id FROM grants WHERE id = ? AND instance = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            // A grant row another process deleted meanwhile leaves the lease without one (a
            // foreign key that failed would refuse the whole batch, and every retry of it).
            [.text(lease.accessId), .text(instance), .text(lease.client.rawValue), .optional(grantRow), .text(instance),
             .path(lease.path), .optional(lease.anchor)] + SQLiteValue.fingerprint(lease.fingerprint)
            + [.bool(lease.isDirectory), .bool(lease.readOnly), .real(lease.created)])
    }

    /// Deletes the instances (and, by cascade, the grants and leases) of processes that are no
    /// longer running — those that crashed or were killed before `close()`.
    static func deleteDeadInstances(_ db: SQLiteConnection, except instance: String) throws {
        var dead: [String] = []
        try db.query("SELECT id, pid, process_start FROM instances") { row in
            let process = ProcessIdentity(pid: Int32(row.int(1)), startTime: UInt64(row.int(2)))
            if row.text(0) != instance && !process.isRunning { dead.append(row.text(0)) }
        }
        for id in dead { try db.run("DELETE FROM instances WHERE id = ?", [.text(id)]) }
    }
}
