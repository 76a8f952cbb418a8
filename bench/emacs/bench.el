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
(defvar wharf-bench--done nil "Called with the elapsed time once the screen is redrawn.")

(defun wharf-bench--redrawn ()
  "Call `wharf-bench--done' once the command loop has redrawn the screen."
  (when wharf-bench--done
    (let ((done wharf-bench--done))
      (setq wharf-bench--done nil)
      ;; A timer runs once the command loop is idle, which is after it has redisplayed.
      (run-at-time 0 nil (lambda ()
                           (redisplay t)
                           (funcall done (- (float-time) wharf-bench--t0)))))))

(defun wharf-bench--setup ()
  "In `minibuffer-setup-hook' (last): the prompt is up; time it once drawn."
  (wharf-bench--redrawn))

(defun wharf-bench--one (start key then)
  "Time START (a function opening a prompt) to drawn, then typing KEY to redrawn.
Calls THEN with (OPEN-SECONDS KEY-SECONDS) once the prompt is quit."
  (setq wharf-bench--t0 (float-time))
  (setq wharf-bench--done
        (lambda (open)
          (setq wharf-bench--done
                (lambda (typed)
                  (run-at-time 0 nil (lambda ()
                                       (run-at-time 0.05 nil then open typed)
                                       (abort-recursive-edit)))))
          (add-hook 'post-command-hook #'wharf-bench--redrawn)
          (setq wharf-bench--t0 (float-time))
          (setq unread-command-events (listify-key-sequence key))))
  (funcall start))

(defun wharf-bench--median (list)
  "The median of LIST."
  (let ((sorted (sort (copy-sequence list) #'<)))
    (nth (/ (length sorted) 2) sorted)))

(defun wharf-bench-run (folder key repeat output)
  "Time wharf.el's picker and `find-file' over FOLDER, typing KEY, REPEAT times.
Write the medians and spreads to OUTPUT as JSON, then kill Emacs."
  (add-hook 'minibuffer-setup-hook #'wharf-bench--setup 90)
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
                  (remove-hook 'post-command-hook #'wharf-bench--redrawn)
                  (push (list what open typed) runs)
                  (run-at-time 0.2 nil #'next))))))
         (figure (what index)
           (let ((values (mapcar (lambda (run) (nth index run))
                                 (cl-remove-if-not (lambda (run) (eq (car run) what)) runs))))
             (list :median (wharf-bench--median values)
                   :min (apply #'min values) :max (apply #'max values))))
         (finish ()
           (remove-hook 'minibuffer-setup-hook #'wharf-bench--setup)
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
