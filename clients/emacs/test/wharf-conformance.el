;;; wharf-conformance.el --- protocol/conformance replayed through wharf.el -*- lexical-binding: t; -*-

;;; Commentary:

;; Replays the transcripts of protocol/conformance/ (see its README.md) against the real wharf,
;; through wharf.el's own transport: the process and `jsonrpc-process-connection' that
;; `wharf--connect' makes, jsonrpc.el's framing and JSON reading and writing.  Every message
;; jsonrpc.el reads for the transcript's connection is taken before it is dispatched, so the
;; transcript, not jsonrpc.el, answers the server's requests.
;;
;; Left out, because jsonrpc.el cannot send them (wharf.el never does either): batches.json
;; (arrays of messages), invalid-messages.json (bodies that are not JSON or not JSON-RPC) and
;; ndjson.json (jsonrpc.el speaks only LSP framing).

;;; Code:

(require 'cl-lib)
(require 'ert)
(require 'wharf)

(defconst wharf-conformance-folder
  (expand-file-name "../../../protocol/conformance/"
                    (file-name-directory (or load-file-name buffer-file-name)))
  "Where the transcripts are.")

(defconst wharf-conformance-left-out
  '("batches" "invalid-messages" "ndjson")
  "Transcripts jsonrpc.el cannot send (see the commentary).")

(defvar wharf-conformance--connection nil "The connection of the transcript being replayed.")
(defvar wharf-conformance--inbox nil "Messages read and not yet taken, oldest first.")
(defvar wharf-conformance--status nil "The exit status of the replayed wharf, once it exited.")

(defun wharf-conformance--take (receive connection message)
  "Around `jsonrpc-connection-receive' (RECEIVE): keep MESSAGE of the transcript's CONNECTION."
  (if (eq connection wharf-conformance--connection)
      (setq wharf-conformance--inbox (nconc wharf-conformance--inbox (list message)))
    (funcall receive connection message)))

(defun wharf-conformance--read (file)
  "The transcript in FILE: objects as hash tables, null as nil, false as :json-false.
That is what jsonrpc.el writes as they were: an empty object stays {}."
  (with-temp-buffer
    (insert-file-contents file)
    (json-parse-buffer :object-type 'hash-table :null-object nil :false-object :json-false)))

(defun wharf-conformance--walk (value fn)
  "VALUE with FN applied to each string in it (hash tables and vectors copied)."
  (cond
   ((stringp value) (funcall fn value))
   ((vectorp value) (vconcat (mapcar (lambda (v) (wharf-conformance--walk v fn)) value)))
   ((hash-table-p value)
    (let ((copy (make-hash-table :test #'equal)))
      (maphash (lambda (k v) (puthash k (wharf-conformance--walk v fn) copy)) value)
      copy))
   (t value)))

(defun wharf-conformance--paths (value fixtures)
  "VALUE with $fixturesURL and $fixtures replaced for the folder FIXTURES."
  (wharf-conformance--walk
   value (lambda (s)
           (replace-regexp-in-string
            "\\$fixtures" fixtures
            (replace-regexp-in-string "\\$fixturesURL" (concat "file://" fixtures) s t t)
            t t))))

(defun wharf-conformance--capture-name (value)
  "The capture VALUE names (\"$dialog\" names dialog), or nil."
  (and (stringp value) (string-match "\\`\\$\\([A-Za-z_][A-Za-z0-9_]*\\)\\'" value)
       (match-string 1 value)))

(defun wharf-conformance--captures-in (value captures)
  "VALUE with each capture replaced by its value in CAPTURES (a hash table)."
  (wharf-conformance--walk
   value (lambda (s)
           (if-let ((name (wharf-conformance--capture-name s)))
               (let ((bound (gethash name captures 'unbound)))
                 (when (eq bound 'unbound) (error "The transcript uses %s before binding it" s))
                 bound)
             s))))

;;;; Matching (messages as jsonrpc.el reads them: plists, vectors, nil for null and {})

(defun wharf-conformance--object-p (value)
  "Whether VALUE is a JSON object as jsonrpc.el reads one."
  (or (null value) (and (consp value) (keywordp (car value)))))

(defun wharf-conformance--equal (a b)
  "Whether the JSON values A and B are equal (1 and 1.0 are)."
  (cond
   ((and (numberp a) (numberp b)) (= a b))
   ((and (vectorp a) (vectorp b))
    (and (= (length a) (length b)) (cl-every #'wharf-conformance--equal a b)))
   (t (equal a b))))

(defun wharf-conformance--has-type (value name)
  "Whether VALUE is of the JSON type NAME."
  (pcase name
    ("null" (null value))
    ("boolean" (or (eq value t) (eq value :json-false)))
    ("string" (stringp value))
    ("array" (vectorp value))
    ("object" (wharf-conformance--object-p value))
    ("integer" (or (integerp value) (and (floatp value) (= value (ffloor value)))))
    ("number" (numberp value))))

(defun wharf-conformance--match (value pattern captures &optional missing)
  "Whether VALUE matches PATTERN, binding in CAPTURES; MISSING: there is no value."
  (let ((capture (wharf-conformance--capture-name pattern)))
    (cond
     ((equal pattern "*") (not missing))
     (capture
      (and (not missing)
           (let ((bound (gethash capture captures 'unbound)))
             (if (eq bound 'unbound)
                 (progn (puthash capture value captures) t)
               (wharf-conformance--equal bound value)))))
     ((hash-table-p pattern)
      (let ((keys (hash-table-keys pattern)))
        (if (and (= (length keys) 1) (string-prefix-p "$" (car keys)))
            (and (not missing)
                 (wharf-conformance--operator (car keys) (gethash (car keys) pattern) value captures))
          (and (not missing)
               (wharf-conformance--object-p value)
               (cl-every
                (lambda (key)
                  (let ((member (gethash key pattern))
                        (slot (plist-member value (intern (concat ":" key)))))
                    (if (and (hash-table-p member) (eq (gethash "$absent" member) t))
                        (null slot)
                      (wharf-conformance--match (cadr slot) member captures (null slot)))))
                keys)))))
     ((vectorp pattern)
      (and (not missing) (vectorp value) (= (length value) (length pattern))
           (cl-every (lambda (v p) (wharf-conformance--match v p captures)) value pattern)))
     ;; {} and null both read as nil.
     (t (and (not missing) (wharf-conformance--equal value pattern))))))

(defun wharf-conformance--operator (name argument value captures)
  "Whether VALUE passes the operator NAME with ARGUMENT, binding in CAPTURES."
  (pcase name
    ("$type" (wharf-conformance--has-type value argument))
    ("$contains" (and (stringp value) (string-search argument value)))
    ("$unordered" (and (vectorp value) (= (length value) (length argument))
                       (wharf-conformance--assign (append value nil) (append argument nil) captures nil)))))

(defun wharf-conformance--matches (value pattern captures)
  "Whether VALUE matches PATTERN; CAPTURES gets new bindings only if it does."
  (let ((trial (copy-hash-table captures)))
    (when (wharf-conformance--match value pattern trial)
      (clrhash captures)
      (maphash (lambda (k v) (puthash k v captures)) trial)
      t)))

(defun wharf-conformance--assign (values patterns captures keep-method-order)
  "Whether VALUES match PATTERNS one to one, binding in CAPTURES.
With KEEP-METHOD-ORDER, the patterns naming a method match in order."
  (let ((used (make-vector (length values) nil)))
    (cl-labels
        ((step (patterns last-ordered bound)
           (if (null patterns)
               bound
             (let* ((pattern (car patterns))
                    (ordered (and keep-method-order (hash-table-p pattern) (gethash "method" pattern)))
                    (found nil))
               (cl-loop for index from (if ordered (1+ last-ordered) 0) below (length values)
                        until found
                        unless (aref used index)
                        do (let ((trial (copy-hash-table bound)))
                             (when (wharf-conformance--match (nth index values) pattern trial)
                               (aset used index t)
                               (setq found (step (cdr patterns) (if ordered index last-ordered) trial))
                               (unless found (aset used index nil)))))
               found))))
      (when (= (length values) (length patterns))
        (when-let ((result (step patterns -1 (copy-hash-table captures))))
          (clrhash captures)
          (maphash (lambda (k v) (puthash k v captures)) result)
          t)))))

;;;; Running a transcript

(defun wharf-conformance--fixtures (folder fixtures)
  "Create FIXTURES (a hash table from the transcript) in FOLDER."
  (maphash
   (lambda (relative content)
     (let ((file (expand-file-name relative folder))
           (content (wharf-conformance--paths content folder)))
       (make-directory (file-name-directory file) t)
       (cond
        ((stringp content)
         (let ((coding-system-for-write 'utf-8-unix))
           (write-region content nil file nil 'silent)))
        ((gethash "json" content)
         (let ((coding-system-for-write 'utf-8-unix))
           (write-region (json-serialize (gethash "json" content) :null-object nil :false-object :json-false)
                         nil file nil 'silent)))
        ((gethash "base64" content)
         (let ((coding-system-for-write 'no-conversion))
           (write-region (base64-decode-string (gethash "base64" content)) nil file nil 'silent)))
        ((gethash "size" content)
         (let ((coding-system-for-write 'no-conversion))
           (write-region (make-string (gethash "size" content) 0) nil file nil 'silent)))
        ((eq (gethash "directory" content) t) (make-directory file t))
        ((gethash "symlink" content) (make-symbolic-link (gethash "symlink" content) file))
        (t (error "Fixture %s: unknown content" relative)))))
   fixtures))

(defun wharf-conformance--next ()
  "The next message read, waiting up to 10 s; nil when none came."
  (let ((deadline (+ (float-time) 10)))
    (while (and (null wharf-conformance--inbox) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      ;; Once wharf has exited, what it wrote has been read.
      (when wharf-conformance--status (setq deadline 0)))
    (pop wharf-conformance--inbox)))

(defun wharf-conformance--send (message)
  "Send MESSAGE (a hash table) with jsonrpc.el's `jsonrpc-connection-send'."
  (let ((args nil))
    (dolist (key '("id" "method" "params" "result" "error"))
      (let ((value (gethash key message 'absent)))
        (unless (eq value 'absent)
          (setq args (append args (list (intern (concat ":" key))
                                        (if (equal key "method") (intern value) value)))))))
    (apply #'jsonrpc-connection-send wharf-conformance--connection args)))

(defun wharf-conformance--show (value)
  "VALUE as text, for a failure's message."
  (condition-case nil
      (json-serialize value :null-object nil :false-object :json-false)
    (error (format "%S" value))))

(defun wharf-conformance--perform (step captures)
  "Perform STEP of a transcript, binding in CAPTURES.  Signals a failure."
  (let ((process (jsonrpc--process wharf-conformance--connection)))
    (cond
     ((gethash "send" step)
      (wharf-conformance--send (wharf-conformance--captures-in (gethash "send" step) captures)))
     ((gethash "expect" step)
      (let ((message (wharf-conformance--next))
            (pattern (gethash "expect" step)))
        (unless message (error "Expected %s, but nothing came" (wharf-conformance--show pattern)))
        (unless (wharf-conformance--matches message pattern captures)
          (error "Expected %s\n  got %s" (wharf-conformance--show pattern) (wharf-conformance--show message)))))
     ((gethash "expectAll" step)
      (let* ((patterns (append (gethash "expectAll" step) nil))
             (messages (cl-loop repeat (length patterns)
                                for message = (wharf-conformance--next)
                                unless message do (error "Expected %d messages, got fewer" (length patterns))
                                collect message)))
        (unless (wharf-conformance--assign messages patterns captures t)
          (error "Expected %s\n  got %s" (wharf-conformance--show (vconcat patterns))
                 (wharf-conformance--show (vconcat messages))))))
     ((gethash "expectSome" step)
      (let ((count 0) (pattern (gethash "expectSome" step)) (done nil))
        (while (not done)
          (let ((message (wharf-conformance--next)))
            (cond ((null message) (setq done t))
                  ((wharf-conformance--matches message pattern captures) (cl-incf count))
                  (t (push message wharf-conformance--inbox) (setq done t)))))
        (when (zerop count) (error "Expected messages matching %s" (wharf-conformance--show pattern)))))
     ((let ((none (gethash "expectNone" step 'absent))) (not (eq none 'absent)))
      (let* ((marker (format "emacs-marker-%s" (random)))
             (pattern (gethash "expectNone" step))
             (before nil)
             (answer nil))
        (jsonrpc-connection-send wharf-conformance--connection :id marker :method 'ping)
        (while (not answer)
          (let ((message (wharf-conformance--next)))
            (unless message (error "No answer to the marker ping"))
            (if (and (equal (plist-get message :id) marker) (not (plist-get message :method)))
                (setq answer t)
              (setq before (nconc before (list message))))))
        (setq wharf-conformance--inbox (nconc before wharf-conformance--inbox))
        (dolist (message before)
          (when (or (null pattern) (wharf-conformance--matches message pattern (copy-hash-table captures)))
            (error "Expected no message%s, got %s"
                   (if pattern (concat " matching " (wharf-conformance--show pattern)) "")
                   (wharf-conformance--show message))))))
     ((gethash "closeInput" step) (process-send-eof process))
     ((gethash "signal" step)
      (signal-process process (intern (gethash "signal" step))))
     ((gethash "exit" step)
      (let ((deadline (+ (float-time) 10)))
        (while (and (null wharf-conformance--status) (< (float-time) deadline))
          (accept-process-output nil 0.05)))
      (unless wharf-conformance--status (error "Wharf did not exit"))
      (unless (eql wharf-conformance--status (gethash "exit" step))
        (error "Wharf exited with status %s, expected %s" wharf-conformance--status (gethash "exit" step)))
      (when wharf-conformance--inbox
        (error "Messages no step took: %s" (wharf-conformance--show (vconcat wharf-conformance--inbox)))))
     (t (error "Unknown step %s" (wharf-conformance--show step))))))

(defun wharf-conformance-run (file wharf)
  "Replay the transcript FILE against the binary WHARF; signal an error on a mismatch."
  (let* ((transcript (wharf-conformance--read file))
         (root (file-name-as-directory (file-truename (make-temp-file "wharf-el-conformance" t))))
         (fixtures (concat root "fixtures"))
         (server (or (gethash "server" transcript) (make-hash-table)))
         (captures (make-hash-table :test #'equal))
         (process-environment (cons (concat "XDG_STATE_HOME=" root "state") process-environment))
         (wharf-log-messages t)
         (wharf-conformance--inbox nil)
         (wharf-conformance--status nil)
         (wharf-conformance--connection nil))
    (make-directory fixtures t)
    (make-directory (concat root "state") t)
    (unwind-protect
        (progn
          (wharf-conformance--fixtures fixtures (or (gethash "fixtures" transcript) (make-hash-table)))
          (let ((environment (gethash "environment" server)))
            (when environment
              (maphash (lambda (name value)
                         (setq process-environment
                               (cons (if value (concat name "=" value) name) process-environment)))
                       environment)))
          (advice-add 'jsonrpc-connection-receive :around #'wharf-conformance--take)
          (setq wharf-conformance--connection
                (wharf--connect "wharf-conformance"
                                (cons wharf (append (wharf-conformance--paths
                                                     (or (gethash "arguments" server) []) fixtures)
                                                    nil))
                                :on-shutdown
                                (lambda (connection)
                                  (setq wharf-conformance--status
                                        (process-exit-status (jsonrpc--process connection))))))
          (cl-loop for step across (gethash "steps" transcript)
                   for number from 1
                   do (condition-case err
                          (wharf-conformance--perform (wharf-conformance--paths step fixtures) captures)
                        (error
                         (error "%s, step %d%s: %s" (file-name-nondirectory file) number
                                (if-let ((comment (gethash "comment" step))) (format " (%s)" comment) "")
                                (error-message-string err))))))
      (advice-remove 'jsonrpc-connection-receive #'wharf-conformance--take)
      (when wharf-conformance--connection
        (let ((process (jsonrpc--process wharf-conformance--connection)))
          (when (process-live-p process) (delete-process process))))
      (delete-directory root t))))

(defun wharf-conformance-transcripts ()
  "The transcripts replayed, by name."
  (cl-remove-if (lambda (name) (member name wharf-conformance-left-out))
                (mapcar #'file-name-base
                        (directory-files wharf-conformance-folder nil "\\.json\\'"))))

(dolist (name (wharf-conformance-transcripts))
  (eval `(ert-deftest ,(intern (format "wharf-conformance-%s" name)) ()
           ,(format "protocol/conformance/%s.json, replayed through wharf.el's transport." name)
           (wharf-conformance-run (expand-file-name ,(concat name ".json") wharf-conformance-folder)
                                  (getenv "WHARF")))
        t))

(ert-deftest wharf-conformance-replays-the-dialog-transcripts ()
  "The importer and exporter frontend transcripts are among those replayed."
  (dolist (name '("importer-frontend" "exporter-frontend" "exporter-lazy" "importer-script"
                  "exporter-script" "importer-endings" "cancel-request" "lifecycle"))
    (should (member name (wharf-conformance-transcripts)))))

(defun wharf-conformance--pattern (json)
  "JSON, a transcript's text, read as a pattern."
  (json-parse-string json :object-type 'hash-table :null-object nil :false-object :json-false))

(ert-deftest wharf-conformance-the-matcher-binds-and-compares ()
  (let ((captures (make-hash-table :test #'equal)))
    (should (wharf-conformance--matches '(:id 1 :result (:dialogId "d1"))
                                        (wharf-conformance--pattern "{\"result\": {\"dialogId\": \"$d\"}}")
                                        captures))
    (should (equal (gethash "d" captures) "d1"))
    (should-not (wharf-conformance--matches '(:params (:dialogId "d2"))
                                            (wharf-conformance--pattern "{\"params\": {\"dialogId\": \"$d\"}}")
                                            captures))
    (should (wharf-conformance--matches [3 1 2] (wharf-conformance--pattern "{\"$unordered\": [1, 2, 3]}") captures))
    (should-not (wharf-conformance--matches '(:a 1) (wharf-conformance--pattern "{\"a\": {\"$absent\": true}}") captures))
    (should (wharf-conformance--matches '(:a 1.0) (wharf-conformance--pattern "{\"a\": {\"$type\": \"integer\"}}") captures))
    (should-not (wharf-conformance--matches '(:a "x") (wharf-conformance--pattern "{\"a\": \"y\"}") captures))
    (should-not (wharf-conformance--matches '(:b 1) (wharf-conformance--pattern "{\"a\": \"*\"}") captures))))

(ert-deftest wharf-conformance-a-transcript-that-does-not-hold-fails ()
  (let ((file (make-temp-file "wharf-el-transcript" nil ".json")))
    (unwind-protect
        (progn
          (with-temp-file file
            (insert "{\"steps\": [
              {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {}}},
              {\"expect\": {\"id\": 1, \"result\": {\"serverInfo\": {\"name\": \"not-wharf\"}}}},
              {\"send\": {\"jsonrpc\": \"2.0\", \"method\": \"exit\"}},
              {\"exit\": 1}]}"))
          (should (string-match-p "Expected .*not-wharf"
                                  (cadr (should-error (wharf-conformance-run file (getenv "WHARF"))))))
          (with-temp-file file
            (insert "{\"steps\": [
              {\"send\": {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {}}},
              {\"expect\": {\"id\": 1, \"result\": {\"serverInfo\": {\"name\": \"wharf\"}}}},
              {\"send\": {\"jsonrpc\": \"2.0\", \"method\": \"exit\"}},
              {\"exit\": 0}]}"))
          (should (string-match-p "exited with status 1, expected 0"
                                  (cadr (should-error (wharf-conformance-run file (getenv "WHARF")))))))
      (delete-file file))))

(provide 'wharf-conformance)
;;; wharf-conformance.el ends here
