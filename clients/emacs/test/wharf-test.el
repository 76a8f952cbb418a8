;;; wharf-test.el --- Tests of wharf.el against the real wharf -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by `make test-emacs':
;;   WHARF=.build/debug/wharf emacs --batch -Q -L clients/emacs -l clients/emacs/test/wharf-test.el \
;;     -f ert-run-tests-batch-and-exit
;; Every test starts its own `wharf' (WHARF, the built binary) with its state in a fresh
;; folder, and checks that every callback was called exactly once.

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'wharf)

(defconst wharf-test-binary
  (let ((binary (getenv "WHARF")))
    (unless (and binary (file-executable-p binary))
      (error "Set WHARF to the built wharf binary (got %S)" binary))
    (expand-file-name binary))
  "The wharf binary under test.")

(defconst wharf-test-directory
  (file-name-directory (or load-file-name buffer-file-name))
  "This folder.")

(defvar wharf-test--root nil "The current test's scratch folder.")

(defun wharf-test--write (relative contents)
  "Create RELATIVE (a file name, or unibyte bytes) under the scratch folder with CONTENTS.
CONTENTS is a string, or the symbol `directory'.  Return the absolute name."
  (let ((file (concat (file-name-as-directory wharf-test--root) relative)))
    (make-directory (file-name-directory file) t)
    (if (eq contents 'directory)
        (make-directory file t)
      (let ((coding-system-for-write 'no-conversion))
        (write-region (encode-coding-string contents 'utf-8) nil file nil 'silent)))
    file))

(defun wharf-test--read-bytes (file)
  "The bytes of FILE."
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (let ((coding-system-for-read 'no-conversion))
      (insert-file-contents-literally file))
    (buffer-string)))

(defmacro wharf-test--with-wharf (args &rest body)
  "Run BODY with a fresh `wharf' started with ARGS (more arguments), then stop it.
The scratch folder is `wharf-test--root'; the state is kept inside it."
  (declare (indent 1) (debug t))
  `(let* ((wharf-test--root (file-name-as-directory
                             (file-truename (make-temp-file "wharf-el-test" t))))
          (wharf-program wharf-test-binary)
          (wharf-arguments (append (list "--state-dir" (concat wharf-test--root "state")) ,args))
          (wharf-request-timeout 10)
          (process-environment (cons "HOME=/nonexistent-home-for-wharf-tests" process-environment)))
     (unwind-protect
         (progn ,@body)
       (wharf-stop)
       (delete-directory wharf-test--root t))))

(defun wharf-test--wait (predicate &optional seconds)
  "Serve processes and timers until PREDICATE is true; fail after SECONDS (10)."
  (let ((deadline (+ (float-time) (or seconds 10))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (should (funcall predicate))))

(defun wharf-test--run (start)
  "Call START with a callback; wait for its one call and return its argument.
Checks that the callback is called exactly once, and never before START returns."
  (let ((calls nil) (returned nil))
    (funcall start (lambda (result)
                     (should returned)
                     (push result calls)))
    (setq returned t)
    (wharf-test--wait (lambda () calls))
    ;; A second call would come with the messages already read: give them a moment.
    (accept-process-output nil 0.2)
    (should (= (length calls) 1))
    (car calls)))

(defun wharf-test--script (steps)
  "A --presenter script file holding STEPS (a Lisp value json-serialize takes)."
  (let ((file (concat wharf-test--root "script.json")))
    (with-temp-file file (insert (json-serialize steps)))
    (list "--presenter" (concat "script:" file))))

;;;; Simulated completing-read: the Emacs picker's input

(defvar wharf-test--answers nil
  "What the simulated prompts answer, in order: a string, a list (several), `quit',
or a function called with (PROMPT COLLECTION) returning one of those.")

(defvar wharf-test--prompts nil
  "Each prompt the picker showed, newest first: (PROMPT CANDIDATES ANNOTATIONS INITIAL).")

(defvar wharf-test--last-initial nil "The initial input of the prompt being answered, in a list.")

(defun wharf-test--record (prompt collection initial)
  "Record PROMPT with COLLECTION's candidates and annotations and INITIAL."
  (setq wharf-test--last-initial (list initial))
  (let* ((candidates (all-completions "" collection))
         (metadata (completion-metadata "" collection nil))
         (annotate (completion-metadata-get metadata 'annotation-function)))
    (push (list prompt candidates
                (mapcar (lambda (c) (cons c (and annotate (funcall annotate c)))) candidates)
                initial)
          wharf-test--prompts)))

(defun wharf-test--answer (prompt collection)
  "The next simulated answer to PROMPT over COLLECTION."
  (let ((answer (pop wharf-test--answers)))
    (when (functionp answer) (setq answer (funcall answer prompt collection)))
    (when (eq answer 'quit) (signal 'quit nil))
    (unless answer (error "No simulated answer left for %S" prompt))
    answer))

(defun wharf-test--completing-read (prompt collection &optional _predicate _require-match
                                           initial _hist _def _inherit)
  "A `completing-read-function' answering PROMPT over COLLECTION from the queue.
INITIAL is recorded."
  (wharf-test--record prompt collection initial)
  (let ((answer (wharf-test--answer prompt collection)))
    (if (listp answer) (car answer) answer)))

(defun wharf-test--completing-read-multiple (prompt collection &optional _predicate _require-match
                                                    initial _hist _def _inherit)
  "`completing-read-multiple' answering PROMPT over COLLECTION from the queue.
INITIAL is recorded."
  (wharf-test--record prompt collection initial)
  (let ((answer (wharf-test--answer prompt collection)))
    (if (listp answer) answer (list answer))))

(defvar wharf-test--y-or-n nil "What `y-or-n-p' answers, in order.")
(defvar wharf-test--y-or-n-prompts nil "The `y-or-n-p' questions asked.")
(defvar wharf-test--choices nil "The keys `read-multiple-choice' answers, in order, or `quit'.")
(defvar wharf-test--choice-prompts nil "The `read-multiple-choice' questions asked, newest first.")

(defmacro wharf-test--with-picker (answers &rest body)
  "Run BODY with the Emacs picker answering ANSWERS (see `wharf-test--answers')."
  (declare (indent 1) (debug t))
  `(let ((wharf-test--answers ,answers)
         (wharf-test--prompts nil)
         (wharf-test--y-or-n-prompts nil)
         (wharf-test--choice-prompts nil)
         (wharf-presenter 'emacs)
         (completing-read-function #'wharf-test--completing-read))
     (cl-letf (((symbol-function 'completing-read-multiple) #'wharf-test--completing-read-multiple)
               ((symbol-function 'y-or-n-p)
                (lambda (prompt)
                  (push prompt wharf-test--y-or-n-prompts)
                  (pop wharf-test--y-or-n)))
               ((symbol-function 'read-multiple-choice)
                (lambda (prompt choices &rest _)
                  (push (cons prompt (mapcar #'cadr choices)) wharf-test--choice-prompts)
                  (let ((key (pop wharf-test--choices)))
                    (when (eq key 'quit) (signal 'quit nil))
                    (or (assq key choices) (error "No simulated choice left for %S" prompt))))))
       ,@body)))

(defun wharf-test--annotation (prompt-record candidate)
  "The annotation PROMPT-RECORD shows for CANDIDATE."
  (cdr (assoc candidate (nth 2 prompt-record))))

;;;; Import

(ert-deftest wharf-import-one-through-the-script-presenter ()
  (wharf-test--with-wharf nil
    (let* ((file (wharf-test--write "docs/notes.txt" "hello\n"))
           (wharf-presenter 'desktop)
           (wharf-arguments (append wharf-arguments (wharf-test--script `[(:choose [,file])])))
           (result (wharf-test--run
                    (lambda (done) (wharf-import '("public.plain-text") :callback done)))))
      (should (eq (plist-get result :status) 'completed))
      (should (equal (plist-get result :paths) (list file)))
      (should (equal (plist-get result :urls) (list (wharf-file-to-url file))))
      (should (eq (plist-get result :kind) 'importer)))))

(ert-deftest wharf-import-several-through-the-script-presenter ()
  (wharf-test--with-wharf nil
    (let* ((a (wharf-test--write "docs/a.txt" "a\n"))
           (b (wharf-test--write "docs/b.txt" "b\n"))
           (wharf-presenter 'desktop)
           (wharf-arguments (append wharf-arguments
                                    (wharf-test--script
                                     `[(:expect (:allowsMultipleSelection t)) (:choose [,a ,b])])))
           (result (wharf-test--run
                    (lambda (done) (wharf-import '("public.plain-text") :multiple t :callback done)))))
      (should (eq (plist-get result :status) 'completed))
      (should (equal (plist-get result :paths) (list a b))))))

(ert-deftest wharf-import-one-in-the-emacs-picker ()
  (wharf-test--with-wharf nil
    (wharf-test--write "docs/sub/deep.txt" "deep\n")
    (let ((a (wharf-test--write "docs/a.txt" "a\n")))
      (wharf-test--with-picker '("a.txt")
        (let ((result (wharf-test--run
                       (lambda (done)
                         (wharf-import '("public.plain-text") :directory (concat wharf-test--root "docs")
                                       :title "Open notes" :callback done)))))
          (should (eq (plist-get result :status) 'completed))
          (should (equal (plist-get result :paths) (list a)))
          (let ((prompt (car wharf-test--prompts)))
            ;; Folders first, as Wharf orders them; `..' to go up.
            (should (equal (nth 1 prompt) '("../" "sub/" "a.txt")))
            (should (string-prefix-p "Open notes (" (nth 0 prompt)))))))))

(ert-deftest wharf-import-several-in-the-emacs-picker-going-into-a-folder-and-up ()
  (wharf-test--with-wharf nil
    (let ((a (wharf-test--write "docs/a.txt" "a\n"))
          (b (wharf-test--write "docs/b.txt" "b\n")))
      (wharf-test--write "docs/sub/deep.txt" "deep\n")
      (wharf-test--with-picker '("sub/" "../" ("a.txt" "b.txt"))
        (let ((result (wharf-test--run
                       (lambda (done)
                         (wharf-import '("public.plain-text") :multiple t
                                       :directory (concat wharf-test--root "docs") :callback done)))))
          (should (eq (plist-get result :status) 'completed))
          (should (equal (plist-get result :paths) (list a b)))
          (should (= (length wharf-test--prompts) 3))
          ;; The second prompt was inside sub/.
          (should (member "deep.txt" (nth 1 (nth 1 wharf-test--prompts)))))))))

(ert-deftest wharf-import-refuses-a-disabled-pick-with-its-annotation ()
  (wharf-test--with-wharf nil
    (when (get-buffer "*wharf events*") (kill-buffer "*wharf events*"))
    (let ((a (wharf-test--write "docs/a.txt" "a\n"))
          (messages nil))
      (with-temp-file (concat wharf-test--root "docs/c.png")
        (set-buffer-multibyte nil)
        (insert (base64-decode-string "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")))
      (wharf-test--with-picker '("c.png" "a.txt")
        (cl-letf* ((real-message (symbol-function 'message))
                   ((symbol-function 'message)
                    (lambda (format-string &rest args)
                      (when format-string (push (apply #'format format-string args) messages))
                      (apply real-message format-string args))))
          (let ((result (wharf-test--run
                         (lambda (done)
                           (wharf-import '("public.plain-text") :directory (concat wharf-test--root "docs")
                                         :callback done)))))
            (should (eq (plist-get result :status) 'completed))
            (should (equal (plist-get result :paths) (list a)))
            (let ((first (car (last wharf-test--prompts)))
                  (reason "it is of type public.png, and this dialog takes only public.plain-text"))
              (should (string-match-p (regexp-quote reason) (wharf-test--annotation first "c.png")))
              (should (null (wharf-test--annotation first "a.txt")))
              ;; Refused with the reason, and asked again.
              (should (= (length wharf-test--prompts) 2))
              (should (cl-some (lambda (m) (string-match-p (concat "c.png cannot be chosen: " (regexp-quote reason)) m))
                               messages))
              ;; Refused in Emacs: only the second pick went to Wharf.
              (with-current-buffer "*wharf events*"
                (should (= (how-many "-> dialog/choose" (point-min) (point-max)) 1))))))))))

(ert-deftest wharf-import-a-refusal-from-dialog-choose-asks-again ()
  ;; A file removed after it was listed: Wharf refuses it (choiceRejected); the picker says why and asks again.
  (wharf-test--with-wharf nil
    (let* ((a (wharf-test--write "docs/a.txt" "a\n"))
           (gone (wharf-test--write "docs/gone.txt" "g\n"))
           (messages nil))
      (wharf-test--with-picker (list (lambda (_prompt _collection) (delete-file gone) "gone.txt") "a.txt")
        (cl-letf* ((real-message (symbol-function 'message))
                   ((symbol-function 'message)
                    (lambda (format-string &rest args)
                      (when format-string (push (apply #'format format-string args) messages))
                      (apply real-message format-string args))))
          (let ((result (wharf-test--run
                         (lambda (done)
                           (wharf-import '("public.plain-text") :directory (concat wharf-test--root "docs")
                                         :callback done)))))
            (should (equal (plist-get result :paths) (list a)))
            (should (= (length wharf-test--prompts) 2))
            (should (cl-some (lambda (m) (string-match-p "gone.txt" m)) messages))
            (should-not (member "gone.txt" (nth 1 (car wharf-test--prompts))))))))))

(ert-deftest wharf-import-cancelled-in-the-emacs-picker ()
  (wharf-test--with-wharf nil
    (wharf-test--write "docs/a.txt" "a\n")
    (wharf-test--with-picker '(quit)
      (let ((result (wharf-test--run
                     (lambda (done)
                       (wharf-import nil :directory (concat wharf-test--root "docs") :callback done)))))
        (should (eq (plist-get result :status) 'cancelled))
        (should (eq (plist-get result :reason) 'user))))))

(ert-deftest wharf-import-cancelled-by-the-app ()
  (wharf-test--with-wharf nil
    (let* ((wharf-presenter 'desktop)
           (wharf-arguments (append wharf-arguments (wharf-test--script [(:delayMs 60000)])))
           (result (wharf-test--run
                    (lambda (done)
                      (let ((handle (wharf-import nil :callback done)))
                        (wharf-cancel handle))))))
      (should (eq (plist-get result :status) 'cancelled))
      (should (eq (plist-get result :reason) 'client)))))

(ert-deftest wharf-import-a-name-that-is-not-utf-8 ()
  (wharf-test--with-wharf nil
    (let* ((bytes (concat (encode-coding-string wharf-test--root 'utf-8) "docs/x\377y.txt"))
           (file (wharf--bytes-file bytes)))
      (make-directory (concat wharf-test--root "docs") t)
      (let ((coding-system-for-write 'no-conversion))
        (write-region "odd\n" nil file nil 'silent))
      (should (file-exists-p file))
      (wharf-test--with-picker (list (lambda (_prompt collection)
                                       (car (all-completions "x" collection))))
        (let ((result (wharf-test--run
                       (lambda (done)
                         (wharf-import nil :directory (concat wharf-test--root "docs") :callback done)))))
          (should (eq (plist-get result :status) 'completed))
          (should (string-suffix-p "/docs/x%FFy.txt" (car (plist-get result :urls))))
          (let ((path (car (plist-get result :paths))))
            (should (equal (encode-coding-string path (wharf--coding)) bytes))
            (should (equal (wharf-test--read-bytes path) "odd\n"))))))))

(ert-deftest wharf-import-under-another-file-name-coding-system ()
  ;; Names are decoded with `file-name-coding-system': under Latin-1, the UTF-8 bytes of café
  ;; are two Latin-1 characters, and the file name Emacs gets names those very bytes.
  (wharf-test--with-wharf nil
    (let* ((bytes (concat (encode-coding-string wharf-test--root 'utf-8) "docs/caf\303\251.txt"))
           (file-name-coding-system 'latin-1))
      (make-directory (concat wharf-test--root "docs") t)
      (let ((coding-system-for-write 'no-conversion))
        (write-region "latin\n" nil (decode-coding-string bytes 'latin-1) nil 'silent))
      (wharf-test--with-picker (list (lambda (_prompt collection) (car (all-completions "caf" collection))))
        (let* ((result (wharf-test--run
                        (lambda (done)
                          (wharf-import nil :directory (concat wharf-test--root "docs") :callback done))))
               (path (car (plist-get result :paths))))
          (should (string-suffix-p "/docs/caf%C3%A9.txt" (car (plist-get result :urls))))
          (should (equal (encode-coding-string path 'latin-1) bytes))
          (should (equal (wharf-test--read-bytes path) "latin\n")))))))

;;;; Export

(ert-deftest wharf-export-a-lazy-document-in-the-emacs-picker ()
  (wharf-test--with-wharf nil
    (wharf-test--make-dir "out")
    (let ((asked nil))
      (wharf-test--with-picker '("report.txt")
        (let ((result (wharf-test--run
                       (lambda (done)
                         (wharf-export (list (list :filename "report" :types '("public.plain-text")
                                                   :snapshot (lambda (type) (push type asked) "Hello, wörld\n")))
                                       :directory (concat wharf-test--root "out") :callback done)))))
          (should (eq (plist-get result :status) 'completed))
          (should (equal asked '("public.plain-text")))
          (should (equal (plist-get result :content-types) '("public.plain-text")))
          (let ((file (concat wharf-test--root "out/report.txt")))
            (should (equal (plist-get result :paths) (list file)))
            (should (equal (wharf-test--read-bytes file) (encode-coding-string "Hello, wörld\n" 'utf-8))))
          ;; The name read was prefilled with the suggested one.
          (should (equal (nth 3 (car wharf-test--prompts)) "report.txt")))))))

(defun wharf-test--make-dir (relative)
  "Make the folder RELATIVE in the scratch folder."
  (make-directory (concat wharf-test--root relative) t))

(ert-deftest wharf-export-asks-the-type-and-suggests-its-name ()
  (wharf-test--with-wharf nil
    (wharf-test--make-dir "out")
    (wharf-test--with-picker (list "public.html" (lambda (_prompt _collection) (car wharf-test--last-initial)))
      (let ((result (wharf-test--run
                     (lambda (done)
                       (wharf-export (list (list :filename "page" :types '("public.plain-text" "public.html")
                                                 :snapshot (lambda (type)
                                                             (if (equal type "public.html") "<p>Hi</p>\n" "Hi\n"))))
                                     :directory (concat wharf-test--root "out") :callback done)))))
        (should (eq (plist-get result :status) 'completed))
        (should (equal (plist-get result :content-types) '("public.html")))
        (should (equal (nth 1 (cadr wharf-test--prompts)) '("public.plain-text" "public.html")))
        (should (equal (nth 3 (car wharf-test--prompts)) "page.html"))
        (should (equal (wharf-test--read-bytes (concat wharf-test--root "out/page.html")) "<p>Hi</p>\n"))))))

(ert-deftest wharf-export-several-documents-into-a-folder ()
  (wharf-test--with-wharf nil
    (wharf-test--make-dir "out/sub")
    (wharf-test--with-picker '("sub/" "./")
      (let ((result (wharf-test--run
                     (lambda (done)
                       (wharf-export (list (list :filename "one" :text "1\n") (list :filename "two" :text "2\n"))
                                     :directory (concat wharf-test--root "out") :callback done)))))
        (should (eq (plist-get result :status) 'completed))
        (should (equal (plist-get result :paths)
                       (list (concat wharf-test--root "out/sub/one.txt") (concat wharf-test--root "out/sub/two.txt"))))
        (should (equal (wharf-test--read-bytes (concat wharf-test--root "out/sub/two.txt")) "2\n"))))))

(ert-deftest wharf-export-asks-before-replacing ()
  (wharf-test--with-wharf nil
    (let ((file (wharf-test--write "out/report.txt" "old\n")))
      (wharf-test--with-picker '("report.txt" "report.txt")
        (let* ((wharf-test--y-or-n '(nil t))
               (result (wharf-test--run
                        (lambda (done)
                          (wharf-export (list (list :filename "report" :text "new\n"))
                                        :directory (concat wharf-test--root "out") :callback done)))))
          (should (eq (plist-get result :status) 'completed))
          (should (= (length wharf-test--y-or-n-prompts) 2))
          (should (string-match-p "Replace" (car wharf-test--y-or-n-prompts)))
          (should (equal (wharf-test--read-bytes file) "new\n")))))))

(ert-deftest wharf-export-through-the-script-presenter-with-bytes ()
  (wharf-test--with-wharf nil
    (wharf-test--make-dir "out")
    (let* ((target (concat wharf-test--root "out/blob.bin"))
           (wharf-presenter 'desktop)
           (wharf-arguments (append wharf-arguments (wharf-test--script `[(:save (:path ,target))])))
           (result (wharf-test--run
                    (lambda (done)
                      (wharf-export (list (list :filename "blob" :types '("public.data")
                                                :snapshot (lambda (_) (unibyte-string 0 255 10 128))))
                                    :callback done)))))
      (should (eq (plist-get result :status) 'completed))
      (should (equal (wharf-test--read-bytes target) (unibyte-string 0 255 10 128))))))

(ert-deftest wharf-export-a-failing-snapshot-fails-the-dialog ()
  (wharf-test--with-wharf nil
    (wharf-test--make-dir "out")
    (let* ((wharf-presenter 'desktop)
           (wharf-arguments (append wharf-arguments
                                    (wharf-test--script `[(:save (:path ,(concat wharf-test--root "out/x.txt")))])))
           (result (wharf-test--run
                    (lambda (done)
                      (wharf-export (list (list :filename "x" :snapshot (lambda (_) (error "Disk on fire"))))
                                    :callback done)))))
      (should (eq (plist-get result :status) 'failed))
      (should (= (plist-get (plist-get result :error) :code) -32041))
      (should-not (file-exists-p (concat wharf-test--root "out/x.txt"))))))

;;;; Move

(defun wharf-test--grant (&rest relatives)
  "Pick RELATIVES (files of one folder) in the Emacs picker: Wharf grants them to the session.
Return their file names."
  (let* ((files (mapcar (lambda (relative) (concat wharf-test--root relative)) relatives))
         (dir (file-name-directory (car files))))
    (wharf-test--with-picker (list (mapcar #'file-name-nondirectory files))
      (should (equal (plist-get (wharf-test--run
                                 (lambda (done) (wharf-import nil :multiple t :directory dir :callback done)))
                                :paths)
                     files)))
    files))

(defun wharf-test--move (files &rest options)
  "Move FILES with OPTIONS, opened in the scratch folder's docs/; return the ending."
  (wharf-test--run (lambda (done)
                     (apply #'wharf-move files :directory (concat wharf-test--root "docs")
                            :callback done options))))

(ert-deftest wharf-move-in-the-emacs-picker-into-a-folder ()
  (wharf-test--with-wharf nil
    (wharf-test--write "docs/a.txt" "alpha\n")
    (wharf-test--write "docs/b.txt" "beta\n")
    (wharf-test--make-dir "docs/dest")
    (let* ((old (wharf-test--grant "docs/a.txt" "docs/b.txt"))
           (new (list (concat wharf-test--root "docs/dest/a.txt") (concat wharf-test--root "docs/dest/b.txt"))))
      (wharf-test--with-picker '("dest/" "./")
        (let ((result (wharf-test--move old)))
          (should (eq (plist-get result :status) 'completed))
          (should (eq (plist-get result :kind) 'mover))
          (should (equal (plist-get result :paths) new))
          (should (equal (plist-get result :urls) (mapcar #'wharf-file-to-url new)))
          (should (equal (mapcar #'wharf-test--read-bytes new) '("alpha\n" "beta\n")))
          (should-not (cl-some #'file-exists-p old))
          ;; The prompt names what is moved; files are there to see, not to choose.
          (let ((first (car (last wharf-test--prompts)))
                (second (car wharf-test--prompts)))
            (should (string-prefix-p "Move a.txt, b.txt to (" (nth 0 first)))
            (should (equal (nth 1 first) '("../" "./" "dest/" "a.txt" "b.txt")))
            (should (string-match-p "folder" (wharf-test--annotation first "a.txt")))
            (should (string-match-p "/docs/dest/): \\'" (nth 0 second)))
            (should (equal (wharf-test--annotation second "./") " move here")))))
      ;; The session now holds the new places, and no longer the old.
      (let ((denied (wharf-test--run (lambda (done) (wharf-move (list (car old)) :callback done)))))
        (should (eq (plist-get denied :status) 'failed))
        (should (= (plist-get (plist-get denied :error) :code) -32020)))
      (wharf-test--with-picker '("../" "./")
        (should (equal (plist-get (wharf-test--run
                                   (lambda (done) (wharf-move (list (car new)) :directory (concat wharf-test--root "docs/dest")
                                                              :callback done)))
                                  :paths)
                       (list (car old))))
        (should (equal (wharf-test--read-bytes (car old)) "alpha\n"))))))

(ert-deftest wharf-move-a-prompt-names-a-few-files-and-counts-the-rest ()
  (wharf-test--with-wharf nil
    (dolist (name '("a" "b" "c" "d" "e")) (wharf-test--write (format "docs/%s.txt" name) name))
    (let ((files (wharf-test--grant "docs/a.txt" "docs/b.txt" "docs/c.txt" "docs/d.txt" "docs/e.txt")))
      (wharf-test--with-picker '(quit)
        (should (eq (plist-get (wharf-test--move files :title "Archive") :status) 'cancelled))
        (should (string-prefix-p "Archive — Move a.txt, b.txt, c.txt and 2 more to ("
                                 (nth 0 (car wharf-test--prompts))))))))

(defun wharf-test--conflict (choices answers)
  "Move docs/a.txt into docs/dest, which holds an a.txt, answering CHOICES and ANSWERS.
ANSWERS follow the picker's `dest/' and `./'.  Return (RESULT QUESTIONS PROMPTS)."
  (wharf-test--write "docs/a.txt" "alpha\n")
  (wharf-test--write "docs/dest/a.txt" "older\n")
  (let ((old (wharf-test--grant "docs/a.txt")))
    (wharf-test--with-picker (append '("dest/" "./") answers)
      (let ((wharf-test--choices choices))
        (let ((result (wharf-test--move old)))
          (list result wharf-test--choice-prompts wharf-test--prompts))))))

(ert-deftest wharf-move-a-name-taken-replaced ()
  (wharf-test--with-wharf nil
    (pcase-let ((`(,result ,questions) (wharf-test--conflict '(?r) nil)))
      (should (eq (plist-get result :status) 'completed))
      (should (equal (plist-get result :paths) (list (concat wharf-test--root "docs/dest/a.txt"))))
      (should (equal (wharf-test--read-bytes (concat wharf-test--root "docs/dest/a.txt")) "alpha\n"))
      (should-not (file-exists-p (concat wharf-test--root "docs/a.txt")))
      (should (= (length questions) 1))
      (should (string-match-p "\\`a\\.txt is already in .*/docs/dest/\\.\\'" (car (car questions))))
      (should (equal (cdr (car questions)) '("replace" "keep both" "cancel"))))))

(ert-deftest wharf-move-a-name-taken-kept-both ()
  (wharf-test--with-wharf nil
    (pcase-let ((`(,result ,questions) (wharf-test--conflict '(?k) nil)))
      (should (eq (plist-get result :status) 'completed))
      (should (equal (plist-get result :paths) (list (concat wharf-test--root "docs/dest/a 2.txt"))))
      (should (equal (wharf-test--read-bytes (concat wharf-test--root "docs/dest/a 2.txt")) "alpha\n"))
      (should (equal (wharf-test--read-bytes (concat wharf-test--root "docs/dest/a.txt")) "older\n"))
      (should-not (file-exists-p (concat wharf-test--root "docs/a.txt")))
      (should (= (length questions) 1)))))

(ert-deftest wharf-move-a-name-taken-cancel-chooses-again ()
  ;; Cancel moves nothing and asks for a folder again, in the same one; C-g there dismisses.
  (wharf-test--with-wharf nil
    (pcase-let ((`(,result ,questions ,prompts) (wharf-test--conflict '(?c) '(quit))))
      (should (eq (plist-get result :status) 'cancelled))
      (should (eq (plist-get result :reason) 'user))
      (should (= (length questions) 1))
      (should (= (length prompts) 3))
      (should (string-match-p "\\`Nothing was moved: choose another folder\n.*/docs/dest/): \\'"
                              (nth 0 (car prompts))))
      (should (equal (wharf-test--read-bytes (concat wharf-test--root "docs/a.txt")) "alpha\n"))
      (should (equal (wharf-test--read-bytes (concat wharf-test--root "docs/dest/a.txt")) "older\n"))
      (should (equal (directory-files (concat wharf-test--root "docs/dest") nil "\\`[^.]")
                     '("a.txt"))))))

(ert-deftest wharf-move-a-name-taken-quit-at-the-question-dismisses ()
  (wharf-test--with-wharf nil
    (pcase-let ((`(,result ,questions) (wharf-test--conflict '(quit) nil)))
      (should (eq (plist-get result :status) 'cancelled))
      (should (eq (plist-get result :reason) 'user))
      (should (= (length questions) 1))
      (should (equal (wharf-test--read-bytes (concat wharf-test--root "docs/a.txt")) "alpha\n"))
      (should (equal (wharf-test--read-bytes (concat wharf-test--root "docs/dest/a.txt")) "older\n")))))

(ert-deftest wharf-move-a-file-never-granted-is-access-denied-and-nothing-shown ()
  (wharf-test--with-wharf nil
    (let ((file (wharf-test--write "docs/private.txt" "mine\n")))
      (wharf-test--make-dir "docs/dest")
      (wharf-test--with-picker nil
        (let ((result (wharf-test--move (list file))))
          (should (eq (plist-get result :status) 'failed))
          (should (= (plist-get (plist-get result :error) :code) -32020))
          (should (string-match-p "urls\\[0\\]" (plist-get (plist-get result :error) :message)))
          (should (null wharf-test--prompts))
          (should (equal (wharf-test--read-bytes file) "mine\n")))))))

(ert-deftest wharf-move-through-the-script-presenter ()
  (wharf-test--with-wharf nil
    (let* ((file (wharf-test--write "docs/a.txt" "alpha\n"))
           (dest (file-name-as-directory (concat wharf-test--root "dest")))
           (wharf-presenter 'desktop)
           (wharf-arguments (append wharf-arguments
                                    (wharf-test--script `[(:choose [,file])
                                                          (:expect (:kind "mover" :title "Archive"))
                                                          (:choose [,dest])]))))
      (wharf-test--make-dir "dest")
      (should (eq (plist-get (wharf-test--run (lambda (done) (wharf-import nil :callback done))) :status)
                  'completed))
      ;; A `file:' URL is taken as it is.
      (let ((result (wharf-test--run (lambda (done)
                                       (wharf-move (list (wharf-file-to-url file)) :title "Archive"
                                                   :callback done)))))
        (should (eq (plist-get result :status) 'completed))
        (should (equal (plist-get result :paths) (list (concat dest "a.txt"))))
        (should (equal (wharf-test--read-bytes (concat dest "a.txt")) "alpha\n"))))))

(ert-deftest wharf-move-cancelled-by-the-app-moves-nothing ()
  (wharf-test--with-wharf nil
    (let* ((file (wharf-test--write "docs/a.txt" "alpha\n"))
           (wharf-presenter 'desktop)
           (wharf-arguments (append wharf-arguments
                                    (wharf-test--script `[(:choose [,file]) (:delayMs 60000)]))))
      (wharf-test--run (lambda (done) (wharf-import nil :callback done)))
      (let ((result (wharf-test--run (lambda (done) (wharf-cancel (wharf-move (list file) :callback done))))))
        (should (eq (plist-get result :status) 'cancelled))
        (should (eq (plist-get result :reason) 'client))
        (should (eq (plist-get result :kind) 'mover))
        (should (equal (wharf-test--read-bytes file) "alpha\n"))))))

(ert-deftest wharf-move-a-name-that-is-not-utf-8 ()
  (wharf-test--with-wharf nil
    (let* ((root (encode-coding-string wharf-test--root 'utf-8))
           (file (wharf--bytes-file (concat root "docs/x\377y.txt"))))
      (wharf-test--make-dir "docs/dest")
      (let ((coding-system-for-write 'no-conversion))
        (write-region "odd\n" nil file nil 'silent))
      (wharf-test--with-picker (list (lambda (_prompt collection) (list (car (all-completions "x" collection)))))
        (should (equal (plist-get (wharf-test--run
                                   (lambda (done) (wharf-import nil :multiple t :directory (concat wharf-test--root "docs")
                                                                :callback done)))
                                  :paths)
                       (list file))))
      (wharf-test--with-picker '("dest/" "./")
        (let* ((result (wharf-test--move (list file)))
               (path (car (plist-get result :paths))))
          (should (string-suffix-p "/docs/dest/x%FFy.txt" (car (plist-get result :urls))))
          (should (equal (encode-coding-string path (wharf--coding)) (concat root "docs/dest/x\377y.txt")))
          (should (equal (wharf-test--read-bytes path) "odd\n"))
          (should-not (file-exists-p file)))))))

(ert-deftest wharf-move-bad-arguments-are-errors-at-the-call ()
  (let ((called nil)
        (callback (lambda (_) (setq called t))))
    (should (string-match-p ":url-enabled is not an option of wharf-move"
                            (cadr (should-error (wharf-move '("/tmp/a") :url-enabled '(:isHidden :json-false)
                                                            :callback callback)))))
    (should-error (wharf-move '("/tmp/a") :multiple t :callback callback))
    (should-error (wharf-move nil :callback callback))
    (should-error (wharf-move '(42) :callback callback))
    (accept-process-output nil 0.1)
    (should-not called)
    (should-not wharf--connection)))

(ert-deftest wharf-move-file-moves-and-the-buffer-follows ()
  (wharf-test--with-wharf nil
    (let ((file (wharf-test--write "docs/notes.txt" "Buy rope.\n"))
          (new (concat wharf-test--root "docs/projects/notes.txt"))
          (default-directory (concat wharf-test--root "docs/")))
      (wharf-test--make-dir "docs/projects")
      (wharf-test--with-picker '(("notes.txt") "projects/" "./")
        (wharf-find-file)
        (wharf-test--wait (lambda () (get-file-buffer file)))
        (with-current-buffer (get-file-buffer file)
          (unwind-protect
              (progn
                (wharf-move-file)
                (wharf-test--wait (lambda () (equal buffer-file-name new)))
                (should (string-prefix-p "Move notes.txt to (" (nth 0 (nth 1 wharf-test--prompts))))
                (should (equal (wharf-test--read-bytes new) "Buy rope.\n"))
                (should-not (file-exists-p file))
                (should-not (buffer-modified-p))
                (should (equal (buffer-name) "notes.txt"))
                (should (equal default-directory (file-name-directory new)))
                (should (verify-visited-file-modtime))
                ;; Saved where it now is, without a "changed on disk" question.
                (goto-char (point-max))
                (insert "More rope.\n")
                (cl-letf (((symbol-function 'yes-or-no-p)
                           (lambda (prompt) (error "Asked: %s" prompt))))
                  (save-buffer))
                (should (equal (wharf-test--read-bytes new) "Buy rope.\nMore rope.\n"))
                (should-not (file-exists-p file)))
            (set-buffer-modified-p nil)
            (kill-buffer)))))))

(ert-deftest wharf-move-file-keeps-unsaved-changes-unsaved ()
  (wharf-test--with-wharf nil
    (let ((file (wharf-test--write "docs/notes.txt" "Buy rope.\n"))
          (new (concat wharf-test--root "docs/projects/notes.txt"))
          (default-directory (concat wharf-test--root "docs/")))
      (wharf-test--make-dir "docs/projects")
      (wharf-test--with-picker '(("notes.txt") "projects/" "./")
        (wharf-find-file)
        (wharf-test--wait (lambda () (get-file-buffer file)))
        (with-current-buffer (get-file-buffer file)
          (unwind-protect
              (progn
                (goto-char (point-max))
                (insert "Unsaved.\n")
                (wharf-move-file)
                (wharf-test--wait (lambda () (equal buffer-file-name new)))
                (should (buffer-modified-p))
                (should (equal (wharf-test--read-bytes new) "Buy rope.\n")))
            (set-buffer-modified-p nil)
            (kill-buffer)))))))

(ert-deftest wharf-move-file-replacing-a-file-another-buffer-visits-keeps-names ()
  (wharf-test--with-wharf nil
    (let* ((file (wharf-test--write "docs/notes.txt" "Buy rope.\n"))
           (taken (wharf-test--write "docs/projects/notes.txt" "older\n"))
           (other (find-file-noselect taken))
           (default-directory (concat wharf-test--root "docs/"))
           (messages nil))
      (unwind-protect
          (wharf-test--with-picker '(("notes.txt") "projects/" "./")
            (wharf-find-file)
            (wharf-test--wait (lambda () (get-file-buffer file)))
            (with-current-buffer (get-file-buffer file)
              (unwind-protect
                  (cl-letf* ((real-message (symbol-function 'message))
                             ((symbol-function 'message)
                              (lambda (format-string &rest args)
                                (when format-string (push (apply #'format format-string args) messages))
                                (apply real-message format-string args))))
                    (let ((wharf-test--choices '(?r)))
                      (wharf-move-file)
                      (wharf-test--wait (lambda () (cl-some (lambda (m) (string-match-p "so this one keeps its name" m))
                                                            messages))))
                    (should (equal (wharf-test--read-bytes taken) "Buy rope.\n"))
                    (should (equal buffer-file-name file))
                    (should (equal (buffer-local-value 'buffer-file-name other) taken)))
                (kill-buffer))))
        (kill-buffer other)))))

(ert-deftest wharf-move-file-of-a-file-wharf-did-not-give-says-why ()
  (wharf-test--with-wharf nil
    (let ((file (wharf-test--write "docs/todo.md" "# Todo\n"))
          (messages nil))
      (wharf-test--make-dir "docs/dest")
      (with-current-buffer (find-file-noselect file)
        (unwind-protect
            (wharf-test--with-picker nil
              (cl-letf* ((real-message (symbol-function 'message))
                         ((symbol-function 'message)
                          (lambda (format-string &rest args)
                            (when format-string (push (apply #'format format-string args) messages))
                            (apply real-message format-string args))))
                (wharf-move-file)
                (wharf-test--wait (lambda () (cl-some (lambda (m) (string-match-p "not given to Emacs through Wharf" m))
                                                      messages)))
                (should (cl-some (lambda (m) (string-match-p "open it with M-x wharf-find-file" m)) messages))
                (should (null wharf-test--prompts))
                (should (equal buffer-file-name file))
                (should (equal (wharf-test--read-bytes file) "# Todo\n"))))
          (kill-buffer))))))

(ert-deftest wharf-move-file-in-a-buffer-without-a-file-is-a-user-error ()
  (with-temp-buffer
    (should (string-match-p "visits no file" (cadr (should-error (wharf-move-file) :type 'user-error))))))

;;;; Failures

(ert-deftest wharf-the-server-dying-mid-dialog-is-reported-as-failed ()
  (wharf-test--with-wharf nil
    (let* ((wharf-presenter 'desktop)
           (wharf-arguments (append wharf-arguments (wharf-test--script [(:delayMs 60000)])))
           (result (wharf-test--run
                    (lambda (done)
                      (wharf-import nil :callback done)
                      ;; Once the dialog is open, the process dies.
                      (wharf-test--wait (lambda () (> (hash-table-count wharf--dialogs) 0)))
                      (signal-process (process-id (jsonrpc--process wharf--connection)) 'KILL)))))
      (should (eq (plist-get result :status) 'failed))
      (should (= (plist-get (plist-get result :error) :code) -32603))
      (should (string-match-p "wharf exited" (plist-get (plist-get result :error) :message)))
      ;; The next dialog starts a new wharf.
      (let ((wharf-arguments (butlast wharf-arguments 2))
            (file (wharf-test--write "a.txt" "a\n")))
        (wharf-test--with-picker '("a.txt")
          (should (equal (plist-get (wharf-test--run
                                     (lambda (done) (wharf-import nil :directory wharf-test--root :callback done)))
                                    :paths)
                         (list file))))))))

(ert-deftest wharf-the-server-dying-while-starting-is-reported-as-failed ()
  (wharf-test--with-wharf nil
    (dotimes (delay 4)
      (let ((result (wharf-test--run
                     (lambda (done)
                       (wharf-import nil :directory wharf-test--root :callback done)
                       ;; Killed at once, or once some of its answers may have been read.
                       (let ((process (jsonrpc--process wharf--connection)))
                         (accept-process-output process (* delay 0.01))
                         (signal-process (process-id process) 'KILL))))))
        (should (eq (plist-get result :status) 'failed))
        (should (= (plist-get (plist-get result :error) :code) -32603))))))

(ert-deftest wharf-a-missing-binary-fails-the-dialog ()
  (let ((wharf-program "/nonexistent/wharf")
        (wharf-arguments nil))
    (let ((result (wharf-test--run (lambda (done) (wharf-import nil :callback done)))))
      (should (eq (plist-get result :status) 'failed))
      (should (string-match-p "could not start" (plist-get (plist-get result :error) :message))))))

(ert-deftest wharf-an-unknown-option-is-an-error-at-the-call ()
  (let ((called nil))
    (should (string-match-p ":no-such-option is not an option"
                            (cadr (should-error (wharf-import nil :no-such-option t
                                                              :callback (lambda (_) (setq called t)))))))
    (should-error (wharf-export (list (list :filename "x")) :callback (lambda (_) (setq called t))))
    (accept-process-output nil 0.1)
    (should-not called)
    (should-not wharf--connection)))

(ert-deftest wharf-bad-options-are-refused-by-wharf ()
  (wharf-test--with-wharf nil
    (let ((result (wharf-test--run
                   (lambda (done) (wharf-import '("no.such.type") :callback done)))))
      (should (eq (plist-get result :status) 'failed))
      (should (= (plist-get (plist-get result :error) :code) -32602)))))

(defun wharf-test--fake (mode)
  "`wharf-arguments' and `wharf-program' running test/fake-wharf.py in MODE."
  (list "python3" (expand-file-name "fake-wharf.py" wharf-test-directory) mode))

(ert-deftest wharf-a-request-wharf-does-not-answer-times-out ()
  (let* ((fake (wharf-test--fake "wedged"))
         (wharf-program (car fake))
         (wharf-arguments (cdr fake)))
    (unwind-protect
        (let ((result (progn
                        ;; Started and initialized first, within the usual deadline.
                        (should (null (wharf-test--run (lambda (done)
                                                         (wharf--ensure (lambda (error _connection)
                                                                          (funcall done error)))))))
                        (let ((wharf-request-timeout 0.5))
                          (wharf-test--run (lambda (done) (wharf-import nil :callback done)))))))
          (should (eq (plist-get result :status) 'failed))
          (should (= (plist-get (plist-get result :error) :code) -32800))
          (should (eq (plist-get (plist-get (plist-get result :error) :data) :timeout) t))
          (should (string-match-p "did not answer presentImporter"
                                  (plist-get (plist-get result :error) :message))))
      (wharf-stop))))

(ert-deftest wharf-an-ending-before-the-answer-naming-its-dialog-is-kept ()
  (let* ((fake (wharf-test--fake "early-events"))
         (wharf-program (car fake))
         (wharf-arguments (cdr fake)))
    (unwind-protect
        (let ((result (wharf-test--run (lambda (done) (wharf-import nil :callback done)))))
          (should (eq (plist-get result :status) 'cancelled))
          (should (eq (plist-get result :reason) 'user))
          (should (equal (plist-get result :dialog-id) "d1")))
      (wharf-stop))))

;;;; Commands

(ert-deftest wharf-insert-file-inserts-at-point ()
  (wharf-test--with-wharf nil
    (wharf-test--write "part.txt" "middle ")
    (with-temp-buffer
      (insert "before after")
      (goto-char 8)
      (let ((default-directory wharf-test--root))
        (wharf-test--with-picker '("part.txt")
          (wharf-insert-file)
          (wharf-test--wait (lambda () (string-match-p "middle" (buffer-string))))))
      (should (equal (buffer-string) "before middle after")))))

(ert-deftest wharf-access-list-revokes ()
  (wharf-test--with-wharf nil
    (wharf-test--write "granted.txt" "g\n")
    (wharf-test--with-picker '("granted.txt")
      (wharf-test--run (lambda (done) (wharf-import nil :directory wharf-test--root :callback done)))
      (wharf-access-list)
      (with-current-buffer "*wharf access*"
        (wharf-test--wait (lambda () tabulated-list-entries))
        (goto-char (point-min))
        (let ((wharf-test--y-or-n '(t)))
          (wharf-access-revoke))
        (wharf-test--wait (lambda () (null tabulated-list-entries)))
        (should (string-match-p "Revoke" (car wharf-test--y-or-n-prompts)))
        (kill-buffer)))))

(ert-deftest wharf-find-file-visits-the-picked-file ()
  (wharf-test--with-wharf nil
    (let ((file (wharf-test--write "notes.txt" "hello\n"))
          (default-directory wharf-test--root))
      (wharf-test--with-picker '(("notes.txt"))
        (wharf-find-file)
        (wharf-test--wait (lambda () (get-file-buffer file)))
        (with-current-buffer (get-file-buffer file)
          (should (equal (buffer-string) "hello\n"))
          (kill-buffer))))))

(ert-deftest wharf-write-file-saves-and-visits ()
  (wharf-test--with-wharf nil
    (wharf-test--make-dir "out")
    (with-temp-buffer
      (insert "draft text\n")
      (setq default-directory (concat wharf-test--root "out/"))
      (rename-buffer "draft.txt" t)
      (wharf-test--with-picker '("final.txt")
        (wharf-write-file)
        (let ((file (concat wharf-test--root "out/final.txt")))
          (wharf-test--wait (lambda () (equal buffer-file-name file)))
          (should (equal (wharf-test--read-bytes file) "draft text\n"))
          (should-not (buffer-modified-p))
          (set-buffer-modified-p nil))))))

(ert-deftest wharf-read-file-name-mode-serves-read-file-name-and-restores ()
  (wharf-test--with-wharf nil
    (let ((file (wharf-test--write "pick.txt" "p\n"))
          (read-file-name-function #'wharf-test--previous-read-file-name))
      (wharf-read-file-name-mode 1)
      (unwind-protect
          (progn
            (should (eq read-file-name-function #'wharf-read-file-name))
            (wharf-test--with-picker '("pick.txt")
              (should (equal (read-file-name "Find file: " wharf-test--root) file))))
        (wharf-read-file-name-mode -1))
      (should (eq read-file-name-function #'wharf-test--previous-read-file-name)))))

(defun wharf-test--previous-read-file-name (&rest _)
  "A `read-file-name-function' standing for one set before the mode."
  "previous")

(ert-deftest wharf-access-list-shows-the-grants ()
  (wharf-test--with-wharf nil
    (let ((file (wharf-test--write "granted.txt" "g\n")))
      (wharf-test--with-picker '("granted.txt")
        (wharf-test--run (lambda (done) (wharf-import nil :directory wharf-test--root :callback done))))
      (wharf-access-list)
      (with-current-buffer "*wharf access*"
        (wharf-test--wait (lambda () tabulated-list-entries))
        (should (string-match-p (regexp-quote (abbreviate-file-name file)) (buffer-string)))
        (should (string-match-p "grant" (buffer-string)))
        (kill-buffer)))))

(ert-deftest wharf-doctor-says-who-draws-the-dialogs ()
  (wharf-test--with-wharf nil
    (let ((wharf-presenter 'emacs))
      (when (get-buffer "*wharf doctor*") (kill-buffer "*wharf doctor*"))
      (wharf-doctor)
      (wharf-test--wait (lambda () (get-buffer "*wharf doctor*")))
      (with-current-buffer "*wharf doctor*"
        (should (string-match-p "presenter: +frontend" (buffer-string)))
        (should (string-match-p "drawn in Emacs, because wharf-presenter is `emacs'" (buffer-string)))
        (kill-buffer)))))

(ert-deftest wharf-doctor-says-why-no-desktop-dialog-is-used ()
  (wharf-test--with-wharf nil
    (let ((wharf-presenter 'auto)
          (process-environment (append '("DISPLAY" "WAYLAND_DISPLAY" "DBUS_SESSION_BUS_ADDRESS" "XDG_RUNTIME_DIR")
                                       process-environment)))
      (when (get-buffer "*wharf doctor*") (kill-buffer "*wharf doctor*"))
      (wharf-doctor)
      (wharf-test--wait (lambda () (get-buffer "*wharf doctor*")))
      (with-current-buffer "*wharf doctor*"
        (should (string-match-p "prefersDesktopDialogs t" (buffer-string)))
        (should (string-match-p "not usable: portal: " (buffer-string)))
        (should (string-match-p "not usable: zenity: " (buffer-string)))
        (should (string-match-p "drawn in Emacs, because no desktop dialog is usable here" (buffer-string)))
        (kill-buffer)))))

(ert-deftest wharf-stderr-and-events-buffers ()
  (wharf-test--with-wharf '("--log-level" "debug")
    (wharf-test--with-picker '(quit)
      (wharf-test--run (lambda (done) (wharf-import nil :directory wharf-test--root :callback done))))
    (should (get-buffer "*wharf stderr*"))
    (with-current-buffer "*wharf events*"
      (should (string-match-p "-> presentImporter" (buffer-string)))
      (should (string-match-p "<- presenter/show" (buffer-string))))))

(ert-deftest wharf-readme-api-example-runs ()
  ;; The README's Elisp API example, as written, against a script standing for the person.
  (wharf-test--with-wharf nil
    (let* ((readme (with-temp-buffer
                     (insert-file-contents (expand-file-name "../README.md" wharf-test-directory))
                     (buffer-string)))
           (start (string-match "## Elisp API\n\n```elisp\n" readme))
           (code (substring readme (match-end 0) (string-match "^```$" readme (match-end 0))))
           (picture (wharf-test--write "Pictures/sky.png" ""))
           (saved (concat wharf-test--root "out/report.html"))
           (wharf-presenter 'desktop)
           (process-environment (cons (concat "HOME=" wharf-test--root) process-environment))
           (wharf-arguments (append wharf-arguments
                                    (wharf-test--script `[(:choose [,picture])
                                                          (:save (:path ,saved :contentType "public.html"))])))
           (messages nil))
      (should start)
      (with-temp-file picture
        (set-buffer-multibyte nil)
        (insert (base64-decode-string "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")))
      (wharf-test--make-dir "out")
      (cl-letf* ((real-message (symbol-function 'message))
                 ((symbol-function 'message)
                  (lambda (format-string &rest args)
                    (when format-string (push (apply #'format format-string args) messages))
                    (apply real-message format-string args))))
        (with-temp-buffer
          (insert code)
          (goto-char (point-min))
          (condition-case nil
              (while t (eval (read (current-buffer)) t))
            (end-of-file nil)))
        (wharf-test--wait (lambda () (and (member (format "picked %S" (list picture)) messages)
                                          (cl-some (lambda (m) (string-prefix-p "(:status completed" m))
                                                   messages)))))
      (should (member (format "picked %S" (list picture)) messages))
      (should (cl-some (lambda (m) (string-prefix-p "(:status completed" m)) messages))
      (should (equal (wharf-test--read-bytes saved) "<p>Hello</p>\n")))))

(ert-deftest wharf-readme-move-example-runs ()
  ;; The README's wharf-move example, as written, after a pick of the file it moves.
  (wharf-test--with-wharf nil
    (let* ((readme (with-temp-buffer
                     (insert-file-contents (expand-file-name "../README.md" wharf-test-directory))
                     (buffer-string)))
           (start (string-match "```elisp\n(wharf-move " readme))
           (code (substring readme (+ start (length "```elisp\n")) (string-match "^```$" readme (1+ start))))
           (picture (wharf-test--write "Pictures/sky.png" "not really a picture"))
           (archive (concat wharf-test--root "Archive/"))
           (wharf-presenter 'desktop)
           (process-environment (cons (concat "HOME=" wharf-test--root) process-environment))
           (wharf-arguments (append wharf-arguments
                                    (wharf-test--script `[(:choose [,picture])
                                                          (:expect (:kind "mover" :title "Archive"))
                                                          (:choose [,archive])])))
           (messages nil))
      (should start)
      (wharf-test--make-dir "Archive")
      (wharf-test--run (lambda (done) (wharf-import nil :callback done)))
      (cl-letf* ((real-message (symbol-function 'message))
                 ((symbol-function 'message)
                  (lambda (format-string &rest args)
                    (when format-string (push (apply #'format format-string args) messages))
                    (apply real-message format-string args))))
        (with-temp-buffer
          (insert code)
          (eval (car (read-from-string (buffer-string))) t))
        (wharf-test--wait (lambda () (cl-some (lambda (m) (string-prefix-p "now at" m)) messages))))
      (should (member (format "now at %S" (list (concat archive "sky.png"))) messages))
      (should-not (file-exists-p picture)))))

;;;; Paths

(ert-deftest wharf-urls-are-bytes ()
  (should (equal (wharf-file-to-url "/tmp/a b/café.txt") "file:///tmp/a%20b/caf%C3%A9.txt"))
  (should (equal (wharf-url-to-file "file:///tmp/caf%C3%A9.txt") "/tmp/café.txt"))
  (let ((odd (wharf-url-to-file "file:///tmp/x%FFy")))
    (should (equal (encode-coding-string odd (wharf--coding)) "/tmp/x\377y"))
    (should (equal (wharf-file-to-url odd) "file:///tmp/x%FFy"))))

;;;; The package itself

(defconst wharf-test-files '("wharf.el" "wharf-picker.el")
  "The package's files.")

(ert-deftest wharf-byte-compiles-without-warnings ()
  (let* ((copy (make-temp-file "wharf-compile" t))
         (load-path (cons copy load-path))
         (byte-compile-error-on-warn t))
    (unwind-protect
        (dolist (file wharf-test-files)
          (copy-file (expand-file-name (concat "../" file) wharf-test-directory) (expand-file-name file copy))
          (should (byte-compile-file (expand-file-name file copy))))
      (delete-directory copy t))))

(ert-deftest wharf-checkdoc-is-clean ()
  (require 'checkdoc)
  (let ((problems nil)
        (checkdoc-spellcheck-documentation-flag nil)
        (checkdoc-diagnostic-buffer "*wharf checkdoc*"))
    (dolist (file wharf-test-files)
      (with-current-buffer (find-file-noselect (expand-file-name (concat "../" file) wharf-test-directory))
        (cl-letf (((symbol-function 'checkdoc-create-error)
                   (lambda (text start _end &optional _unfixable)
                     (push (format "%s:%d: %s" file (line-number-at-pos start) text) problems)
                     nil)))
          (let ((checkdoc-autofix-flag 'never))
            (checkdoc-current-buffer t)))
        (kill-buffer)))
    (should (equal problems nil))))

(ert-deftest wharf-package-lint-is-clean ()
  ;; Debian's elpa-package-lint (the Makefile installs it); no archive is reachable to get it.
  (dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/package-lint-*"))
    (add-to-list 'load-path dir))
  (require 'package-lint)
  (let ((package-archive-contents
         ;; No archive is reachable here: GNU ELPA's jsonrpc, which Emacs 28.1 also ships.
         (list (cons 'jsonrpc (list (package-desc-create :name 'jsonrpc :version '(1 0 14) :archive "gnu")))))
        (package-lint-main-file (expand-file-name "../wharf.el" wharf-test-directory))
        (issues nil))
    (dolist (file wharf-test-files)
      (with-current-buffer (find-file-noselect (expand-file-name (concat "../" file) wharf-test-directory))
        (emacs-lisp-mode)
        (dolist (issue (package-lint-buffer))
          ;; package-lint 0.16 (Debian 12's) predates Emacs 28's release.
          (unless (string-match-p "uninstallable in all released Emacs versions" (nth 3 issue))
            (push (cons file issue) issues)))
        (kill-buffer)))
    (should (equal issues nil))))

(provide 'wharf-test)
;;; wharf-test.el ends here
