;;; bench.el --- Times wharf.el's picker in a real emacs -nw -*- lexical-binding: t; -*-

;;; Commentary:

;; Loaded by bench/emacs/run.sh into `emacs -nw -Q' running in tmux (a real terminal, so real
;; redisplay), after wharf.el.  `wharf-bench-run' times, in the completion UI given:
;;   open   from `wharf-find-file' called to its picker drawn (the minibuffer set up, its
;;          candidates shown and the screen redrawn), with wharf not started and started;
;;   key    from a keystroke typed in the picker to the screen redrawn with the narrowed list;
;; and the same two for Emacs's own `find-file' (`read-file-name') over the same folder, the
;; peer.  Each figure is REPEAT runs; the results go to a file as JSON.

;;; Code:

(require 'wharf)

(defvar wharf-bench--t0 nil "When the timed step began.")
(defvar icomplete-overlay)

(defun wharf-bench--shown ()
  "The text the completion UI shows in the minibuffer, or nil if none yet.
For `icomplete' (fido): its overlay's text; for the default UI: the
`*Completions*' window's text once it is shown."
  (if (bound-and-true-p icomplete-mode)
      (let ((text (and (overlayp icomplete-overlay) (overlay-buffer icomplete-overlay)
                       (overlay-get icomplete-overlay 'after-string))))
        (and text (> (length text) 0) text))
    (let ((window (get-buffer-window "*Completions*" t)))
      (and window (with-current-buffer (window-buffer window) (buffer-string))))))

(defun wharf-bench--when (ready then)
  "Once idle with READY true: redraw, and call THEN with the time taken.
Timers run only when Emacs is idle: once the completion UI has done its
work for the last command."
  (let ((timer nil))
    (setq timer (run-with-timer
                 0 0.001
                 (lambda ()
                   (when (funcall ready)
                     (cancel-timer timer)
                     (redisplay t)
                     (funcall then (- (float-time) wharf-bench--t0))))))))

(defun wharf-bench--in-minibuffer (fn)
  "FN called in the active minibuffer's buffer, or nil if there is none."
  (let ((window (active-minibuffer-window)))
    (and window (with-current-buffer (window-buffer window) (funcall fn)))))

(defun wharf-bench--one (start key then)
  "Time START (a function opening a prompt) to drawn, then typing KEY to redrawn.
Calls THEN with (OPEN-SECONDS KEY-SECONDS) once the prompt is quit."
  ;; What the last prompt showed is not this one's.
  (when (and (boundp 'icomplete-overlay) (overlayp icomplete-overlay))
    (overlay-put icomplete-overlay 'after-string nil))
  (when (get-buffer "*Completions*") (kill-buffer "*Completions*"))
  (setq wharf-bench--t0 (float-time))
  ;; Set up first: find-file's START returns only once its prompt is done.
  (wharf-bench--when
   ;; Drawn: the prompt is up and, with icomplete, its candidates shown.
   (lambda () (wharf-bench--in-minibuffer
               (lambda () (or (not (bound-and-true-p icomplete-mode)) (wharf-bench--shown)))))
   (lambda (open)
     (let ((before (wharf-bench--in-minibuffer #'wharf-bench--shown)))
       (setq wharf-bench--t0 (float-time))
       (setq unread-command-events (listify-key-sequence key))
       (wharf-bench--when
        (lambda () (let ((now (wharf-bench--in-minibuffer #'wharf-bench--shown)))
                     (and now (not (equal now before)))))
        (lambda (typed)
          (run-at-time 0.05 nil then open typed)
          (abort-recursive-edit))))))
  (funcall start))

(defun wharf-bench--median (list)
  "The median of LIST."
  (let ((sorted (sort (copy-sequence list) #'<)))
    (nth (/ (length sorted) 2) sorted)))

(defun wharf-bench-run (folder key repeat output)
  "Time wharf.el's picker and `find-file' over FOLDER, typing KEY, REPEAT times.
Write the medians and spreads to OUTPUT as JSON, then kill Emacs."
  (let ((default-directory (file-name-as-directory folder))
        (runs nil)
        (plan nil))
    ;; Interleaved, so that load on the machine falls on every contender alike.
    (dotimes (_ repeat)
      (setq plan (append plan (list 'cold 'warm 'find-file))))
    (cl-labels
        ((next ()
           (if (null plan)
               (finish)
             (let ((what (pop plan)))
               (when (eq what 'cold) (wharf-stop))
               (when (eq what 'warm)
                 ;; Started, and the folder's listing not kept from the last dialog.
                 nil)
               (wharf-bench--one
                (if (eq what 'find-file)
                    (lambda () (let ((default-directory (file-name-as-directory folder)))
                                 (call-interactively #'find-file)))
                  (lambda () (let ((default-directory (file-name-as-directory folder)))
                               (call-interactively #'wharf-find-file))))
                key
                (lambda (open typed)
                  (push (list what open typed) runs)
                  (run-at-time 0.2 nil #'next))))))
         (figure (what index)
           (let ((values (mapcar (lambda (run) (nth index run))
                                 (cl-remove-if-not (lambda (run) (eq (car run) what)) runs))))
             (list :median (wharf-bench--median values)
                   :min (apply #'min values) :max (apply #'max values))))
         (finish ()
           (with-temp-file output
             (insert (json-serialize
                      (list :cold_open (figure 'cold 1)
                            :warm_open (figure 'warm 1)
                            :wharf_key (figure 'warm 2)
                            :find_file_open (figure 'find-file 1)
                            :find_file_key (figure 'find-file 2)
                            :runs repeat))))
           (kill-emacs 0)))
      (next))))

(provide 'wharf-bench)
;;; bench.el ends here
