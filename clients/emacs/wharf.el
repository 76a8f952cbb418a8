;;; wharf.el --- File dialogs through Wharf -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Wharf authors

;; Author: The Wharf authors
;; Maintainer: The Wharf authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; URL: https://example.invalid/wharf
;; Keywords: files, convenience
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Wharf serves the "Open", "Save As" and "Move To" dialogs of SwiftUI's
;; fileImporter, fileExporter and fileMover as a JSON-RPC server over
;; standard I/O.  This package is
;; its Emacs client: one `wharf' process per Emacs, started on first use and
;; ended with Emacs.
;;
;; The dialog is the desktop's own when one is usable (`wharf-presenter'
;; `auto'), else it is drawn in Emacs through `completing-read', so whatever
;; completion you use (the default, vertico, ivy, helm, ido) draws it.
;;
;; Commands: `wharf-find-file', `wharf-insert-file', `wharf-write-file',
;; `wharf-move-file', `wharf-access-list', `wharf-doctor', `wharf-stop' and
;; the global minor mode `wharf-read-file-name-mode'.
;;
;; Other packages call `wharf-import', `wharf-export' and `wharf-move';
;; their `:callback' is called exactly once, later, with (:status completed
;; :urls ... :paths ...), (:status cancelled :reason ...) or (:status failed
;; :error ...).  Nothing waits while a person chooses.

;;; Code:

(require 'cl-lib)
(require 'jsonrpc)
(require 'subr-x)
(require 'tabulated-list)

(defgroup wharf nil
  "Open, Save As and Move To dialogs through Wharf."
  :group 'files
  :prefix "wharf-")

(defcustom wharf-program "wharf"
  "The `wharf' binary: a name found on variable `exec-path', or a file name."
  :type 'string)

(defcustom wharf-arguments nil
  "Arguments given to `wharf-program', such as (\"--state-dir\" \"/tmp/w\")."
  :type '(repeat string))

(defcustom wharf-presenter 'auto
  "Who draws the dialogs.
`auto': the desktop's own dialog when Wharf finds one usable, else Emacs.
`emacs': always Emacs, through `completing-read'.
`desktop': never Emacs: the desktop's dialog, or the presenter `wharf' was
started with (`--presenter script:FILE' in `wharf-arguments').
Takes effect when `wharf' next starts (see `wharf-stop')."
  :type '(choice (const :tag "The desktop's dialog when usable, else Emacs" auto)
                 (const :tag "Always Emacs" emacs)
                 (const :tag "Never Emacs" desktop)))

(defcustom wharf-app-name "emacs"
  "The app identity sent to Wharf: grants and bookmarks belong to it."
  :type 'string)

(defcustom wharf-request-timeout 10
  "Seconds a request to Wharf may go unanswered before it is given up.
A person choosing is never timed out: Wharf answers a dialog request as
soon as the dialog is shown, and its ending comes later."
  :type 'number)

(defcustom wharf-log-messages nil
  "Non-nil: log every message in full in the `*wharf events*' buffer.
Nil logs one line per message, which stays fast for large folders."
  :type 'boolean)

(defcustom wharf-page-size 10000
  "How many entries the Emacs picker asks for in one `dialog/list'."
  :type 'integer)

(defface wharf-disabled '((t :inherit shadow))
  "Face of picker entries that cannot be chosen."
  :group 'wharf)

(defface wharf-reason '((t :inherit completions-annotations))
  "Face of the reason an entry cannot be chosen."
  :group 'wharf)

;;;; Paths are bytes

(defun wharf--coding ()
  "The coding system file names are encoded with."
  (or file-name-coding-system default-file-name-coding-system 'utf-8))

(defun wharf--file-bytes (file)
  "The bytes of FILE, a file name, as a unibyte string."
  (if (multibyte-string-p file)
      (encode-coding-string file (wharf--coding) t)
    file))

(defun wharf--bytes-file (bytes)
  "A file name standing for BYTES, a unibyte string, with no byte lost.
Decoded with the file name coding system when that gives the same bytes
back, else BYTES themselves (Emacs takes a unibyte file name as bytes)."
  (let ((decoded (decode-coding-string bytes (wharf--coding) t)))
    (if (string= (encode-coding-string decoded (wharf--coding) t) bytes)
        decoded
      bytes)))

(defun wharf-file-to-url (file)
  "The `file:' URL of FILE, an absolute file name, as Wharf writes it.
Every byte but unreserved ASCII and `/' is percent-encoded."
  (let ((bytes (wharf--file-bytes (expand-file-name file))))
    (concat "file://"
            (mapconcat (lambda (byte)
                         (if (or (and (>= byte ?a) (<= byte ?z))
                                 (and (>= byte ?A) (<= byte ?Z))
                                 (and (>= byte ?0) (<= byte ?9))
                                 (memq byte '(?- ?. ?_ ?~ ?/)))
                             (string byte)
                           (format "%%%02X" byte)))
                       bytes ""))))

(defun wharf--url-bytes (url)
  "The path of URL, a `file:' URL, as a unibyte string of its bytes, or nil."
  (when (and (stringp url) (string-match "\\`file://\\(?:localhost\\)?\\(/.*\\)\\'" url))
    (let ((text (encode-coding-string (match-string 1 url) 'utf-8 t))
          (start 0)
          (parts nil))
      (while (string-match "%\\([[:xdigit:]][[:xdigit:]]\\)" text start)
        (push (substring text start (match-beginning 0)) parts)
        (push (unibyte-string (string-to-number (match-string 1 text) 16)) parts)
        (setq start (match-end 0)))
      (push (substring text start) parts)
      (apply #'concat (nreverse parts)))))

(defun wharf-url-to-file (url)
  "The file name URL, a `file:' URL, names, decoded byte for byte; nil if none."
  (when-let ((bytes (wharf--url-bytes url)))
    (wharf--bytes-file (string-to-unibyte bytes))))

(defun wharf--url-name (url)
  "The last component of URL, as a file name."
  (file-name-nondirectory (directory-file-name (wharf-url-to-file url))))

(defun wharf--url-join (dir-url name)
  "The URL of NAME, a file name, inside the folder DIR-URL."
  (wharf-file-to-url (expand-file-name name (file-name-as-directory
                                             (wharf-url-to-file dir-url)))))

;;;; The session

(defvar wharf--connection nil
  "The connection to the running `wharf' (a jsonrpc.el object), or nil.")

(defvar wharf--initialize-result nil
  "What `initialize' answered, as a plist, once it has.")

(defvar wharf--waiting nil
  "Functions waiting for the session, each to be called (ERROR CONNECTION).")

(defvar wharf--dialogs (make-hash-table :test #'equal)
  "The open dialogs, by dialog id.")

(defvar wharf--early (make-hash-table :test #'equal)
  "Messages for a dialog id that arrived before the answer naming it.")

(defvar wharf--presenting 0
  "How many `presentImporter', `presentExporter' and `presentMover' requests wait.")

(cl-defstruct (wharf--dialog (:constructor wharf--dialog-create))
  "One importer, exporter or mover, and the one call of its callback."
  kind id callback documents done connection show cancel-requested)

(defun wharf--log (format-string &rest args)
  "Append FORMAT-STRING formatted with ARGS to the `*wharf events*' buffer."
  (when wharf--connection
    (with-current-buffer (jsonrpc-events-buffer wharf--connection)
      (let ((inhibit-read-only t))
        (save-excursion
          (goto-char (point-max))
          (insert (format-time-string "[%H:%M:%S.%3N] ")
                  (apply #'format format-string args) "\n"))))))

(defun wharf--summary (params)
  "A short text naming what PARAMS is about, for the log."
  (if-let ((id (and (listp params) (plist-get params :dialogId))))
      (format " dialog %s" id)
    ""))

(defun wharf--capabilities ()
  "The client capabilities `wharf-presenter' asks for."
  (pcase wharf-presenter
    ('emacs '(:presentsDialogs t))
    ('desktop '(:presentsDialogs :json-false))
    (_ '(:presentsDialogs t :prefersDesktopDialogs t))))

(defun wharf--command ()
  "The command line starting `wharf'."
  (cons wharf-program wharf-arguments))

(defun wharf--lose (connection message)
  "CONNECTION's `wharf' is gone: its dialogs fail with MESSAGE, once each."
  (when (eq connection wharf--connection)
    (setq wharf--connection nil
          wharf--initialize-result nil
          wharf--presenting 0)
    (clrhash wharf--early)
    (let ((waiting wharf--waiting))
      (setq wharf--waiting nil)
      (dolist (fn waiting)
        (funcall fn (list :code -32603 :message message) nil))))
  (let (lost)
    (maphash (lambda (_id dialog)
               (when (eq (wharf--dialog-connection dialog) connection)
                 (push dialog lost)))
             wharf--dialogs)
    (dolist (dialog lost)
      (wharf--finish dialog (list :status 'failed
                                  :error (list :code -32603 :message message))))))

(defun wharf--on-shutdown (connection)
  "The process of CONNECTION ended."
  (let* ((process (jsonrpc--process connection))
         (message (format "wharf exited (%s %s)"
                          (process-status process) (process-exit-status process))))
    (wharf--log "%s" message)
    (wharf--lose connection message)))

(defun wharf--route (connection method params &optional reply)
  "Hand METHOD with PARAMS from CONNECTION to the dialog it names.
REPLY, for a request, is what answers it; its value is the answer."
  (let* ((id (plist-get params :dialogId))
         (dialog (gethash id wharf--dialogs))
         ;; Ids are a process's own: the next wharf gives out the same ones again.
         (dialog (and dialog (eq (wharf--dialog-connection dialog) connection) dialog)))
    (cond
     ((null id)
      (when reply (jsonrpc-error :code -32601 :message (format "wharf.el does not handle %s" method))))
     (dialog (wharf--handle dialog method params))
     ((and (> wharf--presenting 0) (not reply) (eq connection wharf--connection))
      (push (cons method params) (gethash id wharf--early)))
     (t
      (wharf--log "%s for dialog %s, which wharf.el does not have: dropped" method id)
      (when reply (jsonrpc-error :code -32603 :message (format "wharf.el has no dialog %s" id)))))))

(defun wharf--notification (connection method params)
  "Dispatch the notification METHOD with PARAMS from CONNECTION."
  (let ((method (symbol-name method)))
    (unless wharf-log-messages
      (wharf--log "<- %s%s" method (wharf--summary params)))
    (wharf--route connection method params)))

(defun wharf--request-handler (connection method params)
  "Answer the request METHOD with PARAMS from CONNECTION."
  (let ((method (symbol-name method)))
    (unless wharf-log-messages
      (wharf--log "<- request %s%s" method (wharf--summary params)))
    (wharf--route connection method params t)))

(defun wharf--connect (name command &rest initargs)
  "Start COMMAND and return a jsonrpc.el connection named NAME to it.
INITARGS go to the connection (dispatchers, `:on-shutdown').  Its standard
error goes to the buffer `*NAME stderr*', its events to `*NAME events*'."
  (let* ((program (or (executable-find (car command))
                      (error "%s is not an executable found on exec-path" (car command))))
         (stderr-name (format "*%s stderr*" name))
         (process
          (let ((stderr (progn
                          ;; A fresh buffer: jsonrpc.el hooks the one it is given.
                          (when-let ((old (get-buffer stderr-name)))
                            (kill-buffer old))
                          (get-buffer-create stderr-name))))
            (make-process :name name
                          :command (cons program (cdr command))
                          :connection-type 'pipe
                          :coding 'utf-8-emacs-unix
                          :noquery t
                          :stderr stderr)))
         (connection
          (apply #'make-instance 'jsonrpc-process-connection
                 :name name
                 :process process
                 :events-buffer-scrollback-size (if wharf-log-messages 2000000 0)
                 initargs)))
    ;; jsonrpc.el hides the stderr buffer (" *wharf stderr*"); it is where people look.
    (when-let ((stderr (jsonrpc-stderr-buffer connection)))
      (with-current-buffer stderr
        (unless (get-buffer stderr-name)
          (rename-buffer stderr-name))))
    connection))

(defun wharf--start ()
  "Start `wharf' and send `initialize'; the session is ready when it answers."
  (let* ((command (wharf--command))
         (connection (wharf--connect "wharf" command
                                     :notification-dispatcher #'wharf--notification
                                     :request-dispatcher #'wharf--request-handler
                                     :on-shutdown #'wharf--on-shutdown))
         (process (jsonrpc--process connection)))
    (setq wharf--connection connection)
    (wharf--log "started %s (pid %s)" (string-join command " ") (process-id process))
    (jsonrpc-async-request
     connection :initialize
     (list :processId (emacs-pid)
           :clientInfo (list :name wharf-app-name :version (format "emacs %s" emacs-version))
           :capabilities (wharf--capabilities))
     :timeout wharf-request-timeout
     :success-fn
     (lambda (result)
       (when (eq connection wharf--connection)
         (setq wharf--initialize-result result)
         (ignore-errors (jsonrpc-notify connection :initialized (make-hash-table)))
         (wharf--log "initialized: presenter %s" (plist-get (plist-get result :capabilities) :presenter))
         (let ((waiting (reverse wharf--waiting)))
           (setq wharf--waiting nil)
           (dolist (fn waiting) (funcall fn nil connection)))))
     :error-fn
     (lambda (error)
       (wharf--log "initialize failed: %s" (plist-get error :message))
       (wharf--lose connection (format "initialize failed: %s" (plist-get error :message)))
       (when (process-live-p process) (delete-process process)))
     :timeout-fn
     (lambda ()
       (wharf--lose connection (format "wharf did not answer initialize within %s s" wharf-request-timeout))
       (when (process-live-p process) (delete-process process))))
    connection))

(defun wharf--ensure (fn)
  "Call FN with (ERROR CONNECTION) once the session is ready (started if need be).
FN is never called before this returns."
  (cond
   ((and wharf--connection wharf--initialize-result
         (jsonrpc-running-p wharf--connection))
    (let ((connection wharf--connection))
      (run-at-time 0 nil fn nil connection)))
   (t
    (when (and wharf--connection (not (jsonrpc-running-p wharf--connection)))
      (wharf--lose wharf--connection "wharf is not running"))
    (push fn wharf--waiting)
    (unless wharf--connection
      (condition-case err
          (wharf--start)
        (error
         (setq wharf--connection nil)
         (let ((waiting wharf--waiting)
               (message (format "could not start %s: %s" wharf-program (error-message-string err))))
           (setq wharf--waiting nil)
           (run-at-time 0 nil (lambda ()
                                (dolist (fn waiting)
                                  (funcall fn (list :code -32603 :message message) nil)))))))))))

(cl-defun wharf--request (method params callback &key connection timeout)
  "Send METHOD with PARAMS; call CALLBACK with (ERROR RESULT CONNECTION), once.
To CONNECTION when given (a dialog's own `wharf'), else to the session,
started if need be.  TIMEOUT defaults to `wharf-request-timeout': past it,
ERROR says so, with :data (:timeout t)."
  (let* ((timeout (or timeout wharf-request-timeout))
         (send
          (lambda (error conn)
            (if error
                (funcall callback error nil nil)
              (unless wharf-log-messages
                (wharf--log "-> %s%s" method (wharf--summary params)))
              (let* ((answered nil)
                     (answer (lambda (error result)
                               (unless answered
                                 (setq answered t)
                                 (funcall callback error result conn)))))
                (condition-case err
                    (jsonrpc-async-request
                     conn (intern method) params
                     :timeout timeout
                     :success-fn (lambda (result) (funcall answer nil result))
                     :error-fn
                     (lambda (error)
                       (funcall answer
                                (if (jsonrpc-running-p conn)
                                    error
                                  ;; jsonrpc.el's "Server died" (-1), in Wharf's terms.
                                  (list :code -32603
                                        :message (format "wharf exited before it answered %s" method)))
                                nil))
                     :timeout-fn
                     (lambda ()
                       (funcall answer (list :code -32800
                                             :message (format "wharf did not answer %s within %s s"
                                                              method timeout)
                                             :data (list :timeout t))
                                nil)))
                  ;; The process ended before the request could be written.
                  (error (funcall answer (list :code -32603
                                               :message (format "could not send %s to wharf (%s)"
                                                                method (error-message-string err)))
                                  nil))))))))
    (if connection
        (if (jsonrpc-running-p connection)
            (funcall send nil connection)
          (run-at-time 0 nil callback (list :code -32603 :message "wharf is not running") nil nil))
      (wharf--ensure send))))

(defun wharf--shutdown (connection)
  "Shut CONNECTION's `wharf' down: `shutdown', `exit', then a second's wait."
  (when (jsonrpc-running-p connection)
    (let ((process (jsonrpc--process connection))
          (done nil))
      (ignore-errors
        (jsonrpc-async-request connection :shutdown nil
                               :timeout 1
                               :success-fn (lambda (_) (setq done t))
                               :error-fn (lambda (_) (setq done t))
                               :timeout-fn (lambda () (setq done t))))
      (with-timeout (1 nil)
        (while (and (not done) (process-live-p process))
          (accept-process-output process 0.05)))
      (ignore-errors (jsonrpc-notify connection :exit nil))
      (ignore-errors (process-send-eof process))
      (with-timeout (1 nil)
        (while (process-live-p process)
          (accept-process-output process 0.05)))
      (when (process-live-p process)
        (delete-process process)))))

(defun wharf-stop ()
  "End the running `wharf'; the next dialog will start a new one.
Its open dialogs end as failed."
  (interactive)
  (if-let ((connection wharf--connection))
      (progn
        (wharf--lose connection "wharf was stopped")
        (wharf--shutdown connection)
        (when (called-interactively-p 'interactive)
          (message "wharf stopped")))
    (when (called-interactively-p 'interactive)
      (message "wharf is not running"))))

(defun wharf--kill-emacs ()
  "End `wharf' with Emacs."
  (when wharf--connection
    (ignore-errors (wharf-stop))))

(add-hook 'kill-emacs-hook #'wharf--kill-emacs)

;;;; Dialogs

(defun wharf--finish (dialog result)
  "End DIALOG with RESULT, a plist, calling its callback unless it has ended."
  (unless (wharf--dialog-done dialog)
    (setf (wharf--dialog-done dialog) t)
    (wharf--close-picker dialog)
    (when-let ((id (wharf--dialog-id dialog)))
      (when (eq (gethash id wharf--dialogs) dialog)
        (remhash id wharf--dialogs)))
    (let ((result (append result (list :kind (intern (wharf--dialog-kind dialog))
                                       :dialog-id (wharf--dialog-id dialog)))))
      (wharf--log "dialog %s ended: %s" (wharf--dialog-id dialog) (plist-get result :status))
      (condition-case err
          (funcall (wharf--dialog-callback dialog) result)
        (error
         (wharf--log "the callback failed: %s" (error-message-string err))
         (message "wharf: the callback failed: %s" (error-message-string err)))))))

(defun wharf--handle (dialog method params)
  "Handle METHOD with PARAMS for DIALOG; a request's answer is the value."
  (pcase method
    ("presenter/show"
     (unless (wharf--dialog-done dialog)
       (setf (wharf--dialog-show dialog) params)
       ;; Drawn from a timer: never inside the process filter, which must return.
       (run-at-time 0 nil #'wharf--picker-start dialog)))
    ("dialog/completed"
     (let ((error (plist-get params :error)))
       (if error
           (wharf--finish dialog (list :status 'failed :error error))
         (let ((urls (append (plist-get params :urls) nil)))
           (wharf--finish dialog
                          (append (list :status 'completed
                                        :urls urls
                                        :paths (mapcar #'wharf-url-to-file urls))
                                  (when-let ((types (plist-get params :contentTypes)))
                                    (list :content-types (append types nil)))))))))
    ("dialog/cancelled"
     (wharf--finish dialog (list :status 'cancelled
                                 :reason (intern (or (plist-get params :reason) "unknown")))))
    ("exporter/snapshot" (wharf--snapshot dialog params))
    ("presenter/hide" (wharf--close-picker dialog))
    ((or "dialog/presentationChanged" "dialog/progress") nil)
    (_ nil)))

(defun wharf--register (dialog id connection)
  "File DIALOG under ID on CONNECTION and hand it what arrived for it early."
  (setf (wharf--dialog-id dialog) id
        (wharf--dialog-connection dialog) connection)
  (puthash id dialog wharf--dialogs)
  (let ((early (reverse (gethash id wharf--early))))
    (remhash id wharf--early)
    (dolist (event early)
      (wharf--handle dialog (car event) (cdr event)))))

(defun wharf--presented ()
  "A present request was answered: once none waits, early messages are dropped."
  (setq wharf--presenting (max 0 (1- wharf--presenting)))
  (when (zerop wharf--presenting)
    (clrhash wharf--early)))

(defun wharf--utf-8-text (bytes)
  "BYTES, a unibyte string, as text if they are UTF-8, else nil."
  (let ((text (decode-coding-string bytes 'utf-8-unix t)))
    (and (string= (encode-coding-string text 'utf-8-unix t) bytes)
         ;; Bytes that are not UTF-8 decode to raw-byte characters, which JSON cannot carry.
         (not (string-match-p "[\x3fff80-\x3fffff]" text))
         text)))

(defun wharf--contents (value)
  "The `contents' of a document for VALUE.
VALUE is a string of text (multibyte) or bytes (unibyte), or a plist
\(:text S), (:bytes S), (:base64 S) or (:file NAME).  Signals an error
for anything else."
  (cond
   ((stringp value)
    (let* ((bytes (if (multibyte-string-p value)
                      (encode-coding-string value 'utf-8-unix t)
                    value))
           (text (wharf--utf-8-text bytes)))
      (if text
          (list :text text)
        (list :base64 (base64-encode-string bytes t)))))
   ((and (listp value) (plist-get value :text)) (wharf--contents (plist-get value :text)))
   ((and (listp value) (plist-get value :bytes))
    (wharf--contents (string-to-unibyte (plist-get value :bytes))))
   ((and (listp value) (plist-get value :base64)) (list :base64 (plist-get value :base64)))
   ((and (listp value) (plist-get value :file))
    (list :path (wharf-file-to-url (plist-get value :file))))
   (t (error "A document needs a string, :text, :bytes, :base64 or :file, not %S" value))))

(defun wharf--snapshot (dialog params)
  "Answer `exporter/snapshot' PARAMS for DIALOG from its document's :snapshot."
  (let* ((index (plist-get params :documentIndex))
         (document (and (integerp index) (nth index (wharf--dialog-documents dialog))))
         (snapshot (plist-get document :snapshot)))
    (unless (functionp snapshot)
      (jsonrpc-error :code -32602 :message (format "no lazy document %s" index)))
    (condition-case err
        (wharf--contents (funcall snapshot (plist-get params :contentType)))
      (error
       (wharf--log "snapshot failed: %s" (error-message-string err))
       (jsonrpc-error :code -32603 :message (format "snapshot failed: %s" (error-message-string err)))))))

(defun wharf--options (options kind)
  "The Wharf `options' object for the keyword OPTIONS of a KIND dialog."
  (let ((result nil))
    (cl-loop for (key name) in '((:title :title) (:message :message)
                                 (:confirmation-label :confirmationLabel)
                                 (:customization-id :customizationId)
                                 (:timeout-ms :timeoutMs)
                                 (:url-enabled :urlEnabled)
                                 (:imports-unresolved-aliases :importsUnresolvedAliases)
                                 (:filename-label :filenameLabel))
             for value = (plist-get options key)
             when (and value (or (eq kind 'exporter) (not (eq key :filename-label))))
             do (setq result (plist-put result name value)))
    (when-let ((dir (plist-get options :directory)))
      (setq result (plist-put result :defaultDirectory
                              (wharf-file-to-url (expand-file-name dir)))))
    (let ((browser (append (plist-get options :browser-options) nil)))
      (when (plist-get options :show-hidden)
        (cl-pushnew "includeHiddenFiles" browser :test #'equal))
      (when browser
        (setq result (plist-put result :browserOptions (vconcat browser)))))
    result))

(defconst wharf--option-keys
  '(:callback :title :message :confirmation-label :customization-id :timeout-ms :url-enabled
              :imports-unresolved-aliases :filename-label :directory :browser-options :show-hidden
              :presentation-id :multiple :folders :content-type :content-types :default-filename)
  "The keywords `wharf-import' and `wharf-export' take.")

(defconst wharf--mover-option-keys
  '(:callback :title :message :confirmation-label :customization-id :timeout-ms :directory
              :browser-options :show-hidden :presentation-id)
  "The keywords `wharf-move' takes: a mover has no types, names or predicate.")

(defun wharf--check-options (options &optional keys)
  "Signal an error naming the first key of OPTIONS that is not among KEYS.
KEYS defaults to `wharf--option-keys'."
  (cl-loop for (key _value) on options by #'cddr
           unless (memq key (or keys wharf--option-keys))
           do (error "Wharf: %S is not an option%s" key
                     (if keys " of wharf-move" ""))))

(defun wharf--present (method params dialog)
  "Send METHOD with PARAMS for DIALOG, and register it once answered."
  (cl-incf wharf--presenting)
  (wharf--request
   method params
   (lambda (error result connection)
     (unwind-protect
         (if error
             (wharf--finish dialog (list :status 'failed :error error))
           (wharf--register dialog (plist-get result :dialogId) connection)
           (when (wharf--dialog-cancel-requested dialog)
             (wharf-cancel dialog)))
       (wharf--presented))))
  dialog)

(defun wharf-import (types &rest options)
  "Ask the person for files of TYPES; return a handle for `wharf-cancel'.
TYPES is a list of content type identifiers (\"public.plain-text\"), or nil
for any file.  OPTIONS are keywords:
  :callback FN         called once, later, with the ending (a plist):
                       (:status completed :urls URLS :paths FILES),
                       (:status cancelled :reason REASON), REASON one of
                       user, client, timeout or disconnected,
                       or (:status failed :error (:code N :message TEXT)).
  :multiple BOOL       several files may be chosen.
  :folders BOOL        folders are chosen (adds public.folder to TYPES).
  :directory DIR       where the dialog opens.
  :title :message :confirmation-label :customization-id :timeout-ms
  :url-enabled :imports-unresolved-aliases :browser-options :show-hidden
  :presentation-id     as Wharf's presentImporter options."
  (wharf--check-options options)
  (let* ((callback (or (plist-get options :callback) #'ignore))
         (types (append types nil))
         (types (if (plist-get options :folders)
                    (cl-adjoin "public.folder" types :test #'equal)
                  types))
         (params (list :allowedContentTypes (vconcat (or types '("public.data")))
                       :allowsMultipleSelection (if (plist-get options :multiple) t :json-false)))
         (dialog-options (wharf--options options 'importer))
         (dialog (wharf--dialog-create :kind "importer" :callback callback)))
    (when dialog-options
      (setq params (plist-put params :options dialog-options)))
    (when-let ((id (plist-get options :presentation-id)))
      (setq params (plist-put params :presentationId id)))
    (wharf--present "presentImporter" params dialog)))

(defun wharf-export (documents &rest options)
  "Ask the person where to save DOCUMENTS; return a handle for `wharf-cancel'.
Each document is a plist: :filename NAME, :types (IDENTIFIERS...), and its
bytes as one of :text STRING, :bytes UNIBYTE-STRING, :file NAME, or
:snapshot FN, a function called with the content type chosen, once the
person has chosen, returning a string (or a plist as for :text etc.).
OPTIONS are keywords:
  :callback FN         called once, later, with the ending (a plist), as in
                       `wharf-import'; completed adds :content-types.
  :content-type ID     the FileDocument form: each document as this type.
  :content-types IDS   the types the person may choose from.
  :default-filename NAME :directory DIR :title :message :confirmation-label
  :filename-label :customization-id :timeout-ms :presentation-id
                       as Wharf's presentExporter options."
  (wharf--check-options options)
  (let* ((callback (or (plist-get options :callback) #'ignore))
         (docs (mapcar
                (lambda (doc)
                  (let* ((lazy (plist-get doc :snapshot))
                         (types (or (plist-get doc :types)
                                    (if (or lazy (plist-get doc :text))
                                        '("public.plain-text")
                                      '("public.data"))))
                         (entry (list :writableContentTypes (vconcat types))))
                    (when-let ((name (plist-get doc :filename)))
                      (setq entry (plist-put entry :filename name)))
                    (unless lazy
                      (setq entry (plist-put entry :contents
                                             (wharf--contents
                                              (cond ((plist-get doc :text) (list :text (plist-get doc :text)))
                                                    ((plist-get doc :bytes) (list :bytes (plist-get doc :bytes)))
                                                    ((plist-get doc :file) (list :file (plist-get doc :file)))
                                                    (t (error "Wharf: a document needs :text, :bytes, :file or :snapshot")))))))
                    entry))
                documents))
         (params (list :documents (vconcat docs)))
         (dialog-options (wharf--options options 'exporter))
         (dialog (wharf--dialog-create :kind "exporter" :callback callback
                                       :documents documents)))
    (when-let ((type (plist-get options :content-type)))
      (setq params (plist-put params :contentType type)))
    (when-let ((types (plist-get options :content-types)))
      (setq params (plist-put params :contentTypes (vconcat types))))
    (when-let ((name (plist-get options :default-filename)))
      (setq params (plist-put params :defaultFilename name)))
    (when-let ((id (plist-get options :presentation-id)))
      (setq params (plist-put params :presentationId id)))
    (when dialog-options
      (setq params (plist-put params :options dialog-options)))
    (wharf--present "presentExporter" params dialog)))

(defun wharf--move-url (file)
  "The `file:' URL for FILE, a file name or a `file:' URL, in `wharf-move'."
  (cond
   ((not (and (stringp file) (> (length file) 0)))
    (error "Wharf: a file to move is a file name or a file: URL, not %S" file))
   ((string-prefix-p "file:" file) file)
   (t (wharf-file-to-url (directory-file-name (expand-file-name file))))))

(defun wharf-move (files &rest options)
  "Ask the person for a folder and move FILES into it; return a handle.
The handle is for `wharf-cancel'.  FILES is a list of file names or
`file:' URLs (1 to 256), each one Wharf gave this session: picked with
`wharf-import', saved with `wharf-export', or inside a folder picked so.
Any other is refused, and nothing is shown: the callback gets failed with
code -32020 (accessDenied).  The folder chosen is the consent to move
them; if any file cannot be moved, none is.
OPTIONS are keywords:
  :callback FN         called once, later, with the ending (a plist), as in
                       `wharf-import': completed's :urls and :paths are
                       the files' new places, in the order of FILES.
  :directory DIR       where the dialog opens.
  :title :message :confirmation-label :customization-id :timeout-ms
  :browser-options :show-hidden :presentation-id
                       as Wharf's presentMover options.
Wharf then grants this session the new places, as it did the old, and
the old ones no longer."
  (wharf--check-options options wharf--mover-option-keys)
  (unless (and (listp files) files)
    (error "Wharf: wharf-move needs a non-empty list of files, not %S" files))
  (let* ((callback (or (plist-get options :callback) #'ignore))
         (params (list :urls (vconcat (mapcar #'wharf--move-url files))))
         (dialog-options (wharf--options options 'mover))
         (dialog (wharf--dialog-create :kind "mover" :callback callback)))
    (when dialog-options
      (setq params (plist-put params :options dialog-options)))
    (when-let ((id (plist-get options :presentation-id)))
      (setq params (plist-put params :presentationId id)))
    (wharf--present "presentMover" params dialog)))

(defun wharf-cancel (dialog)
  "End DIALOG, a handle from `wharf-import', `wharf-export' or `wharf-move'.
The app ends it: its callback is told (:status cancelled :reason client)."
  (cond
   ((wharf--dialog-done dialog) nil)
   ((not (wharf--dialog-id dialog)) (setf (wharf--dialog-cancel-requested dialog) t))
   (t (wharf--request "cancel" (list :dialogId (wharf--dialog-id dialog))
                      (lambda (error _result _connection)
                        (when error
                          (wharf--log "cancel: %s" (plist-get error :message))))
                      :connection (wharf--dialog-connection dialog)))))

;;;; Requests about a dialog, and the picker drawn in Emacs (wharf-picker.el)

(defun wharf--dialog-request (dialog method params callback)
  "Send METHOD with PARAMS about DIALOG to its `wharf'.
CALLBACK gets (ERROR RESULT)."
  (wharf--request method params
                  (lambda (error result _connection) (funcall callback error result))
                  :connection (wharf--dialog-connection dialog)))

(defun wharf--later (fn &rest args)
  "Call FN with ARGS from a timer, outside the process filter."
  (apply #'run-at-time 0 nil fn args))

(autoload 'wharf--picker-start "wharf-picker"
  "Draw DIALOG in Emacs, from the folder its `presenter/show' names.")

(declare-function wharf--picker-close "wharf-picker" (dialog))

(defun wharf--close-picker (dialog)
  "Take DIALOG's picker down, if one was ever drawn (it has ended)."
  (when (featurep 'wharf-picker)
    (wharf--picker-close dialog)))

;;;; Commands

(defun wharf--say (text)
  "Show TEXT in the echo area, and again once a picker being taken down is gone."
  (message "%s" text)
  (when (active-minibuffer-window)
    (run-at-time 0.1 nil #'message "%s" text)))

(defun wharf--report (result)
  "Tell the person how RESULT, a dialog's ending, was not a success."
  (pcase (plist-get result :status)
    ('failed (wharf--say (format "wharf: %s" (plist-get (plist-get result :error) :message))))
    ('cancelled (unless (eq (plist-get result :reason) 'user)
                  (wharf--say (format "wharf: the dialog was cancelled (%s)"
                                      (plist-get result :reason)))))))

;;;###autoload
(defun wharf-find-file (&optional types)
  "Visit files chosen in a Wharf dialog, opened in `default-directory'.
TYPES, a list of content types, limits what may be chosen (any file by
default); interactively, a prefix argument asks for them."
  (interactive
   (list (when current-prefix-arg
           (split-string (read-string "Content types (e.g. public.image public.text): ")))))
  (wharf-import types
                :multiple t
                :directory default-directory
                :callback (lambda (result)
                            (if (eq (plist-get result :status) 'completed)
                                (let ((files (plist-get result :paths)))
                                  (dolist (file (reverse (cdr files)))
                                    (find-file-noselect file))
                                  (when files (find-file (car files))))
                              (wharf--report result)))))

;;;###autoload
(defun wharf-insert-file ()
  "Insert the contents of a file chosen in a Wharf dialog at point."
  (interactive)
  (let ((buffer (current-buffer))
        (marker (point-marker)))
    (wharf-import nil
                  :directory default-directory
                  :callback (lambda (result)
                              (if (not (eq (plist-get result :status) 'completed))
                                  (wharf--report result)
                                (if (not (buffer-live-p buffer))
                                    (message "wharf: the buffer is gone")
                                  (with-current-buffer buffer
                                    (save-excursion
                                      (goto-char marker)
                                      (insert-file-contents (car (plist-get result :paths)))))))))))

(defun wharf--buffer-bytes (buffer)
  "The bytes BUFFER's text is written as: its file coding system's encoding."
  (with-current-buffer buffer
    (save-restriction
      (widen)
      (encode-coding-string (buffer-string) (or buffer-file-coding-system 'utf-8-unix) t))))

(defun wharf--buffer-type (buffer callback)
  "Call CALLBACK with the content type of BUFFER's file name (by extension)."
  (let* ((name (or (buffer-file-name buffer) (buffer-name buffer)))
         (extension (file-name-extension name)))
    (if (not extension)
        (funcall callback "public.plain-text")
      (wharf--request "contentTypes/fromFilenameExtension"
                      (list :filenameExtension extension)
                      (lambda (error result _connection)
                        (let ((type (and (not error) (plist-get result :identifier))))
                          (funcall callback
                                   (if (stringp type)
                                       type
                                     "public.plain-text"))))))))

;;;###autoload
(defun wharf-write-file ()
  "Save the current buffer where chosen in a Wharf dialog, and visit that file.
Like `write-file': the buffer's bytes are encoded as saving would."
  (interactive)
  (let* ((buffer (current-buffer))
         (name (if buffer-file-name (file-name-nondirectory buffer-file-name) (buffer-name)))
         (directory (if buffer-file-name (file-name-directory buffer-file-name) default-directory))
         (tick nil))
    (wharf--buffer-type
     buffer
     (lambda (type)
       (wharf-export
        (list (list :filename name
                    :types (list type)
                    :snapshot (lambda (_type)
                                (unless (buffer-live-p buffer) (error "The buffer is gone"))
                                (setq tick (buffer-chars-modified-tick buffer))
                                (list :bytes (wharf--buffer-bytes buffer)))))
        :directory directory
        :callback
        (lambda (result)
          (if (not (eq (plist-get result :status) 'completed))
              (wharf--report result)
            (let ((file (car (plist-get result :paths))))
              (when (buffer-live-p buffer)
                (with-current-buffer buffer
                  (set-visited-file-name file t)
                  (when (eql tick (buffer-chars-modified-tick))
                    (set-buffer-modified-p nil))
                  (set-visited-file-modtime)))
              (message "Wrote %s" file)))))))))

;;;###autoload
(defun wharf-move-file ()
  "Move the current buffer's file into a folder chosen in a Wharf dialog.
The buffer follows the file: it visits it in its new place, as modified
or unmodified as it was.  Wharf moves only files it gave this session:
one opened with \[wharf-find-file] or saved with \[wharf-write-file]."
  (interactive)
  (let ((buffer (current-buffer))
        (file buffer-file-name))
    (unless file
      (user-error "This buffer visits no file to move"))
    (unless (file-exists-p file)
      (user-error "%s is not on disk yet: save it first" (abbreviate-file-name file)))
    (wharf-move (list file)
                :directory (file-name-directory file)
                :customization-id "wharf-move-file"
                :callback (lambda (result) (wharf--moved buffer file result)))))

(defun wharf--moved (buffer file result)
  "Make BUFFER follow its FILE to where RESULT put it, or report why it did not."
  (pcase (plist-get result :status)
    ('completed
     (let* ((new (car (plist-get result :paths)))
            (other (find-buffer-visiting new)))
       (cond
        ((and other (not (eq other buffer)))
         ;; As `write-file' would ask: a file another buffer visits is not taken over.
         (wharf--say (format "Moved to %s; buffer %s visits that file, so this one keeps its name"
                             (abbreviate-file-name new) (buffer-name other))))
        (t
         (when (and (buffer-live-p buffer)
                    (equal (buffer-local-value 'buffer-file-name buffer) file))
           (with-current-buffer buffer
             ;; ALONG-WITH-FILE: the file was renamed, so the buffer is no more modified
             ;; than it was, and keeps the time it last saw the file change (moving keeps it).
             (set-visited-file-name new t t)))
         (wharf--say (format "Moved to %s" (abbreviate-file-name new)))))))
    ((and 'failed (guard (eql (plist-get (plist-get result :error) :code) -32020)))
     (wharf--say (format "wharf: %s was not given to Emacs through Wharf, and Wharf moves only \
files it gave: open it with M-x wharf-find-file (or save it with M-x wharf-write-file), \
then move it" (abbreviate-file-name file))))
    (_ (wharf--report result))))

;;;; The access list

(defvar wharf--access-entries nil "The entries the access list shows.")

(defun wharf--access-refresh ()
  "Fetch and show this session's grants and this app's bookmarks."
  (let ((buffer (current-buffer)))
    (wharf--request
     "listAccess" nil
     (lambda (error result _connection)
       (if error
           (message "wharf: %s" (plist-get error :message))
         (when (buffer-live-p buffer)
           (with-current-buffer buffer
             (setq wharf--access-entries (append (plist-get result :entries) nil))
             (setq tabulated-list-entries
                   (mapcar (lambda (entry)
                             (list entry
                                   (vector (or (plist-get entry :kind) "")
                                           (if (eq (plist-get entry :readOnly) t) "read" "read-write")
                                           (format "%s" (or (plist-get entry :activeLeases) 0))
                                           (let ((file (wharf-url-to-file (plist-get entry :url))))
                                             (if file (abbreviate-file-name file) "")))))
                           wharf--access-entries))
             (tabulated-list-print t))))))))

(defun wharf-access-visit ()
  "Visit the file of the access entry at point."
  (interactive)
  (when-let ((entry (tabulated-list-get-id)))
    (find-file (wharf-url-to-file (plist-get entry :url)))))

(defun wharf-access-revoke ()
  "Revoke the grant or bookmark at point (asks first)."
  (interactive)
  (when-let ((entry (tabulated-list-get-id)))
    (when (y-or-n-p (format "Revoke %s? " (abbreviate-file-name (wharf-url-to-file (plist-get entry :url)))))
      (let ((buffer (current-buffer)))
        (wharf--request "revokeAccess"
                        (if (equal (plist-get entry :kind) "bookmark")
                            (list :bookmark (plist-get entry :bookmark))
                          (list :url (plist-get entry :url)))
                        (lambda (error result _connection)
                          (if error
                              (message "wharf: %s" (plist-get error :message))
                            (message "wharf: revoked %s" (plist-get result :revoked))
                            (when (buffer-live-p buffer)
                              (with-current-buffer buffer (wharf--access-refresh)))))
                        :timeout (max wharf-request-timeout 35))))))

(defvar wharf-access-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'wharf-access-visit)
    (define-key map "x" #'wharf-access-revoke)
    (define-key map "d" #'wharf-access-revoke)
    map)
  "Keys of `wharf-access-mode'.")

(define-derived-mode wharf-access-mode tabulated-list-mode "Wharf Access"
  "This session's grants and this app's bookmarks.
\\<wharf-access-mode-map>\\[wharf-access-visit] visits, \\[wharf-access-revoke] revokes, \
\\[revert-buffer] refreshes."
  (setq tabulated-list-format [("Kind" 9 t) ("Rights" 11 t) ("Leases" 7 t) ("File" 0 t)])
  (add-hook 'tabulated-list-revert-hook #'wharf--access-refresh nil t)
  (tabulated-list-init-header))

;;;###autoload
(defun wharf-access-list ()
  "List this session's grants and this app's bookmarks (`listAccess')."
  (interactive)
  (let ((buffer (get-buffer-create "*wharf access*")))
    (with-current-buffer buffer
      (wharf-access-mode)
      (wharf--access-refresh))
    (pop-to-buffer buffer)))

;;;; Doctor

(defun wharf--doctor-text (error result)
  "The text of `wharf-doctor', from `initialize's RESULT or ERROR."
  (let* ((caps (plist-get result :capabilities))
         (presenter (plist-get caps :presenter))
         (presenters (append (plist-get caps :presenters) nil))
         (unavailable (plist-get caps :unavailablePresenters))
         (server (plist-get result :serverInfo)))
    (with-temp-buffer
      (insert "Wharf doctor\n\n")
      (insert (format "program:    %s\n" (string-join (wharf--command) " ")))
      (insert (format "found:      %s\n" (or (executable-find wharf-program) "NOT FOUND on exec-path")))
      (when error
        (insert (format "\nWharf could not be started: %s\n" (plist-get error :message))))
      (when result
        (insert (format "server:     %s %s, protocol %s\n" (plist-get server :name)
                        (plist-get server :version) (plist-get result :protocolVersion)))
        (when wharf--connection
          (insert (format "pid:        %s\n" (process-id (jsonrpc--process wharf--connection)))))
        (insert (format "setting:    wharf-presenter = %s (sent %S)\n" wharf-presenter (wharf--capabilities)))
        (insert (format "presenter:  %s\n" (or presenter "none")))
        (insert (format "usable:     %s\n" (if presenters (string-join presenters ", ") "none")))
        (cl-loop for (name reason) on unavailable by #'cddr
                 do (insert (format "not usable: %s: %s\n" (substring (symbol-name name) 1) reason)))
        (insert "\n"
                (pcase presenter
                  ("frontend"
                   (if (eq wharf-presenter 'emacs)
                       "Dialogs are drawn in Emacs, because wharf-presenter is `emacs'."
                     "Dialogs are drawn in Emacs, because no desktop dialog is usable here (see above)."))
                  ('nil "No presenter can show dialogs: every dialog fails with noPresenter.")
                  ("script" "Dialogs are answered by the script given with --presenter.")
                  (name (format "Dialogs are the desktop's (%s)%s." name
                                (if (eq wharf-presenter 'desktop) ", because wharf-presenter is `desktop'"
                                  ", because one is usable and wharf-presenter is `auto'"))))
                "\n"))
      (buffer-string))))

;;;###autoload
(defun wharf-doctor ()
  "Show which presenter draws Wharf's dialogs, and why."
  (interactive)
  (wharf--ensure
   (lambda (error _connection)
     (let ((text (wharf--doctor-text error wharf--initialize-result)))
       (with-current-buffer (get-buffer-create "*wharf doctor*")
         (let ((inhibit-read-only t))
           (erase-buffer)
           (insert text))
         (special-mode)
         (display-buffer (current-buffer)))))))

;;;; read-file-name

(defvar wharf--previous-read-file-name-function nil
  "`read-file-name-function' before `wharf-read-file-name-mode' was turned on.")

(defun wharf--wait (dialog-result)
  "Wait, serving timers and processes, until DIALOG-RESULT's car is set; return it."
  (while (not (car dialog-result))
    (accept-process-output nil 0.05))
  (car dialog-result))

(defun wharf-read-file-name (prompt &optional dir default mustmatch initial predicate)
  "Read a file name through a Wharf dialog; for `read-file-name-function'.
PROMPT, DIR, DEFAULT, MUSTMATCH, INITIAL and PREDICATE as for `read-file-name'.
A failure falls back to the previous `read-file-name-function'."
  (let* ((box (list nil))
         (dialog (wharf-import nil
                               :directory (expand-file-name (or dir default-directory))
                               :title (string-trim-right prompt "[: ]+")
                               :callback (lambda (result) (setcar box result))))
         (result (condition-case nil
                     (wharf--wait box)
                   (quit (wharf-cancel dialog) (signal 'quit nil)))))
    (pcase (plist-get result :status)
      ('completed (car (plist-get result :paths)))
      ('cancelled (signal 'quit nil))
      (_
       (message "wharf: %s; asking without Wharf" (plist-get (plist-get result :error) :message))
       (funcall (or wharf--previous-read-file-name-function #'read-file-name-default)
                prompt dir default mustmatch initial predicate)))))

;;;###autoload
(define-minor-mode wharf-read-file-name-mode
  "Make `read-file-name' (\\[find-file] and others) ask through a Wharf dialog.
Turning it off restores the previous `read-file-name-function'."
  :global t
  :group 'wharf
  (if wharf-read-file-name-mode
      (unless (eq read-file-name-function #'wharf-read-file-name)
        (setq wharf--previous-read-file-name-function read-file-name-function)
        (setq read-file-name-function #'wharf-read-file-name))
    (when (eq read-file-name-function #'wharf-read-file-name)
      (setq read-file-name-function (or wharf--previous-read-file-name-function
                                        #'read-file-name-default)))))

(provide 'wharf)
;;; wharf.el ends here
