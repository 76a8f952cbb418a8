;;; jsonrpc_el_driver.el --- the interop scenario with Emacs's jsonrpc.el  -*- lexical-binding: t; -*-

;; The scenario of ../scenario.py with the jsonrpc.el Emacs ships (the library Eglot is built
;; on), unmodified:
;;
;;     emacs --batch -l jsonrpc_el_driver.el WHARF      (the fixture as JSON in $INTEROP_FIXTURE)
;;
;; jsonrpc.el speaks in plists: a request without params sends "params": null, and both null
;; and {} read back as nil.  It writes a Content-Length header only.  Its requests wait with
;; `accept-process-output'; so does `interop-wait', for notifications.

(require 'jsonrpc)
(require 'cl-lib)

(defconst interop-client "jsonrpc.el")
(defconst interop-timeout 30)
(defvar interop-fixture (json-parse-string (getenv "INTEROP_FIXTURE") :object-type 'plist))
(defvar interop-notifications nil "Every notification, newest first, as (METHOD PARAMS).")
(defvar interop-report nil "The report, a plist, newest entry first.")

(defun interop-put (key value)
  (setq interop-report (plist-put interop-report key value)))

(defun interop-get (key) (plist-get interop-fixture key))

(defun interop-wait (predicate what)
  "Let Emacs read output until PREDICATE holds; fail after `interop-timeout' seconds."
  (let ((deadline (+ (float-time) interop-timeout)) found)
    (while (not (setq found (funcall predicate)))
      (when (> (float-time) deadline) (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05))
    found))

(defun interop-notification (method dialog-id)
  "Waits for notification METHOD about DIALOG-ID; its params."
  (interop-wait (lambda ()
                  (cl-loop for (name params) in (reverse interop-notifications)
                           when (and (equal name method) (equal (plist-get params :dialogId) dialog-id))
                           return params))
                (format "%s for %s" method dialog-id)))

(defun interop-call (connection method params)
  "Like `jsonrpc-request', which this driver cannot use: jsonrpc.el 1.0.14's `jsonrpc-request'
returns by throwing out of the process filter, so whatever came in the same read as its
answer (wharf's `presenter/show' right after the `presentImporter' answer) stays unread until
more output comes, and waiting for that notification would wait forever.  The asynchronous
request's callbacks return normally, and the filter goes on reading."
  (let (answer)
    (jsonrpc-async-request connection method params
                           :success-fn (lambda (result) (setq answer (list :result result)))
                           :error-fn (lambda (error) (setq answer (list :error error)))
                           :timeout-fn (lambda () (setq answer (list :error "timed out")))
                           :timeout interop-timeout)
    (interop-wait (lambda () answer) (format "the answer to %s" method))
    (if (plist-member answer :result)
        (plist-get answer :result)
      (error "%s failed: %S" method (plist-get answer :error)))))

(defun interop-run (wharf)
  (let* ((process (make-process :name "wharf" :command (list wharf "--state-dir" ":memory:"
                                                              "--log-file" (interop-get :log))
                                :connection-type 'pipe :coding 'utf-8-emacs-unix :noquery t
                                :stderr (get-buffer-create "*wharf stderr*")))
         (connection
          (make-instance
           'jsonrpc-process-connection :name "wharf" :process process
           :events-buffer-scrollback-size 0
           :notification-dispatcher
           (lambda (_connection method params)
             (push (list (symbol-name method) params) interop-notifications))
           :request-dispatcher
           (lambda (_connection method params)
             (unless (eq method 'exporter/snapshot)
               (jsonrpc-error :code -32601 :message (format "no %s here" method)))
             (interop-put :snapshot params)
             (list :text (format "written by %s\n" interop-client)))))
         (call (lambda (method params) (interop-call connection method params))))
    (interop-put :initialize
                 (funcall call :initialize
                          (list :processId (emacs-pid)
                                :clientInfo (list :name (concat "interop-" interop-client))
                                :capabilities (list :presentsDialogs t))))
    (jsonrpc-notify connection :initialized nil)

    (let* ((importer (funcall call :presentImporter
                              (list :allowedContentTypes ["public.image"]
                                    :options (list :defaultDirectory (interop-get :photos)))))
           (id (plist-get importer :dialogId)))
      (interop-put :importer importer)
      (interop-put :importerShown (interop-notification "presenter/show" id))
      (let* ((listing (funcall call :dialog/list (list :dialogId id)))
             (pick (cl-loop for entry across (plist-get listing :entries)
                            when (equal (plist-get entry :name) "a.png") collect (plist-get entry :url))))
        (interop-put :listing listing)
        (interop-put :choose (funcall call :dialog/choose (list :dialogId id :urls (vconcat pick)))))
      (interop-notification "dialog/completed" id))

    (let* ((exporter (funcall call :presentExporter
                              (list :documents (vector (list :filename "lazy" :writableContentTypes ["public.plain-text"]))
                                    :options (list :defaultDirectory (interop-get :out)))))
           (id (plist-get exporter :dialogId)))
      (interop-put :exporter exporter)
      (interop-put :exporterShown (interop-notification "presenter/show" id))
      (interop-put :save (funcall call :dialog/choose (list :dialogId id :url (interop-get :saveURL))))
      (interop-notification "dialog/completed" id))

    (let* ((dialog (funcall call :presentImporter (list :allowedContentTypes ["public.item"])))
           (id (plist-get dialog :dialogId)))
      (interop-put :cancelDialog dialog)
      (interop-notification "presenter/show" id)
      (interop-put :cancel (funcall call :cancel (list :dialogId id)))
      (interop-notification "dialog/cancelled" id)
      (interop-notification "presenter/hide" id))

    ;; jsonrpc.el 1.0.14 sends no $/cancelRequest and does not say which id a request got;
    ;; Eglot sends $/cancelRequest itself.  Ids count up from 1, so the next one is known.
    (let* ((dialog (funcall call :presentImporter (list :allowedContentTypes ["public.item"]
                                                        :options (list :defaultDirectory (interop-get :big)))))
           (id (plist-get dialog :dialogId))
           (tries nil))
      (interop-put :slowDialog dialog)
      (interop-notification "presenter/show" id)
      (cl-loop repeat 3
               for request-id = (1+ (jsonrpc--next-request-id connection))
               for answer = nil
               do (jsonrpc-async-request connection :dialog/list (list :dialogId id :limit 1)
                                         :success-fn (lambda (result) (setq answer (list :result result)))
                                         :error-fn (lambda (error) (setq answer error))
                                         :timeout interop-timeout)
               (jsonrpc-notify connection :$/cancelRequest (list :id request-id))
               (interop-wait (lambda () answer) "the cancelled dialog/list's answer")
               (push answer tries)
               until (plist-get answer :code))
      (interop-put :cancelRequest (vconcat (reverse tries)))
      (interop-put :dismiss (funcall call :dialog/dismiss (list :dialogId id)))
      (interop-notification "dialog/cancelled" id))

    (interop-put :shutdown (funcall call :shutdown nil))
    (jsonrpc-notify connection :exit nil)
    (interop-wait (lambda () (not (process-live-p process))) "wharf to exit")
    (interop-put :exitStatus (process-exit-status process))
    (interop-put :notifications (vconcat (mapcar #'vconcat (reverse interop-notifications))))
    (with-temp-file (interop-get :report)
      (insert (json-serialize interop-report :null-object nil :false-object :json-false)))))

(condition-case failure
    (interop-run (car command-line-args-left))
  (error (message "interop driver failed: %S\nnotifications: %S" failure interop-notifications)
         (kill-emacs 1)))
(kill-emacs 0)
