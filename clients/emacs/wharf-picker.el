;;; wharf-picker.el --- The Wharf dialog drawn in Emacs -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Wharf authors

;; Author: The Wharf authors
;; URL: https://example.invalid/wharf
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; When Emacs draws a Wharf dialog (`wharf-presenter' `emacs', or `auto' with no desktop
;; dialog usable), Wharf sends `presenter/show' and wharf.el calls `wharf--picker-start',
;; loading this file.  The picker is a `completing-read' over the folder's entries as
;; `dialog/list' gives them, so whatever completion UI is in use draws it; each answer goes
;; back with `dialog/choose', `dialog/dismiss' or, when this code fails, `dialog/fail'.
;; A mover is a folder picker whose prompt names the files it moves; a name taken in the
;; folder chosen is asked about (Replace, Keep both, Cancel) and chosen again with the answer.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'wharf)

(defun wharf--picker-start (dialog)
  "Draw DIALOG in Emacs, from the folder its `presenter/show' names."
  (unless (wharf--dialog-done dialog)
    (let ((show (wharf--dialog-show dialog)))
      (wharf--picker-list dialog (plist-get show :directory) nil))))

(defun wharf--picker-fail (dialog err)
  "The picker's own code failed with ERR: DIALOG ends as failed (`dialog/fail')."
  (let ((text (error-message-string err)))
    (wharf--log "the picker failed: %s" text)
    (unless (wharf--dialog-done dialog)
      (wharf--dialog-request dialog "dialog/fail"
                             (list :dialogId (wharf--dialog-id dialog) :message text)
                             #'ignore))))

(defmacro wharf--picker-guard (dialog &rest body)
  "Run BODY for DIALOG: an error in it ends DIALOG with `dialog/fail'."
  (declare (indent 1) (debug t))
  `(condition-case err
       (progn ,@body)
     (error (wharf--picker-fail ,dialog err))))

(defun wharf--picker-list (dialog dir-url notice)
  "List DIR-URL for DIALOG (every page), then ask; NOTICE is a message to show."
  (let ((entries nil))
    (cl-labels
        ((page (cursor)
           (wharf--dialog-request
            dialog "dialog/list"
            (append (list :dialogId (wharf--dialog-id dialog) :limit wharf-page-size)
                    (if cursor (list :cursor cursor :directory dir-url)
                      (when dir-url (list :directory dir-url))))
            (lambda (error result)
              (cond
               ((wharf--dialog-done dialog) nil)
               (error
                (if dir-url
                    ;; The folder went away or cannot be read: say so, and go back.
                    (wharf--later #'wharf--picker-list dialog nil
                                  (format "%s" (plist-get error :message)))
                  (wharf--picker-fail dialog (list 'error (plist-get error :message)))))
               (t
                (setq entries (nconc entries (append (plist-get result :entries) nil)))
                (if-let ((next (plist-get result :nextCursor)))
                    (progn (setq dir-url (plist-get result :directory))
                           (page next))
                  (wharf--later #'wharf--picker-ask dialog
                                (plist-put (copy-sequence result) :entries entries)
                                notice))))))))
      (page nil))))

(defun wharf--entry-name (entry utf-8)
  "The file name of ENTRY, a `dialog/list' entry.
Its `name' when UTF-8, non-nil, says file names are UTF-8 and the name
lost no byte (Wharf shows a byte that is not UTF-8 as U+FFFD): decoding
each URL is the slow way, for a folder of thousands."
  (let ((name (plist-get entry :name)))
    (if (and utf-8 (stringp name) (not (string-search "\ufffd" name)))
        name
      (wharf--url-name (plist-get entry :url)))))

(defun wharf--entry-candidate (entry utf-8)
  "The text of ENTRY, a `dialog/list' entry, in the picker.
UTF-8 as for `wharf--entry-name'."
  (let ((name (wharf--entry-name entry utf-8)))
    (if (eq (plist-get entry :isDirectory) t) (concat name "/") name)))

(defconst wharf--up "../" "The picker's candidate for the parent folder.")
(defconst wharf--here "./" "The picker's candidate for the folder itself.")

(defun wharf--picker-table (candidates annotations)
  "A completion table of CANDIDATES, in their order, annotated from ANNOTATIONS."
  (lambda (string predicate action)
    (if (eq action 'metadata)
        `(metadata (category . wharf-entry)
                   (display-sort-function . identity)
                   (cycle-sort-function . identity)
                   (annotation-function . ,(lambda (candidate) (gethash candidate annotations))))
      (complete-with-action action candidates string predicate))))

(defvar wharf--picker-history nil "History of the Emacs picker.")

(defvar wharf--picker-notice nil
  "What the picker's next prompt says first: why the last answer was refused.")

(defvar-local wharf--minibuffer-dialog nil
  "In a minibuffer the picker reads from: the dialog it is for.")

(defun wharf--picker-read (dialog prompt table multiple initial require-match)
  "Read for DIALOG from TABLE with PROMPT: several answers (a list) when MULTIPLE.
INITIAL is the input to start with; REQUIRE-MATCH as for `completing-read'.
A quit gives the symbol `quit'."
  (let ((inhibit-quit nil)
        ;; Another dialog's picker may be open: this one opens inside it.
        (enable-recursive-minibuffers t))
    (condition-case nil
        (minibuffer-with-setup-hook (lambda () (setq wharf--minibuffer-dialog dialog))
          (if multiple
              (completing-read-multiple prompt table nil require-match initial 'wharf--picker-history)
            (list (completing-read prompt table nil require-match initial 'wharf--picker-history))))
      (quit 'quit))))

(defun wharf--picker-close (dialog)
  "Take DIALOG's picker down if it is the minibuffer being read (the dialog ended)."
  (let ((window (active-minibuffer-window)))
    (when (and window
               (eq (buffer-local-value 'wharf--minibuffer-dialog (window-buffer window)) dialog))
      (wharf--later (lambda ()
                      (let ((window (active-minibuffer-window)))
                        (when (and window
                                   (eq (buffer-local-value 'wharf--minibuffer-dialog
                                                           (window-buffer window))
                                       dialog))
                          (abort-recursive-edit))))))))

(defun wharf--picker-dismiss (dialog)
  "The person dismissed DIALOG."
  (wharf--dialog-request dialog "dialog/dismiss" (list :dialogId (wharf--dialog-id dialog)) #'ignore))

(defun wharf--picker-ask (dialog listing notice)
  "Ask which entry of LISTING DIALOG takes, showing NOTICE first."
  (wharf--picker-guard dialog
    (unless (wharf--dialog-done dialog)
      (let* ((show (wharf--dialog-show dialog))
             (exporter (equal (plist-get show :kind) "exporter"))
             (mover (equal (plist-get show :kind) "mover"))
             (folder-picker (or mover (eq (plist-get (plist-get show :filters) :directories) t)))
             (multiple (and (not exporter) (eq (plist-get show :allowsMultipleSelection) t)))
             (dir-url (plist-get listing :directory))
             (dir (wharf-url-to-file dir-url))
             (utf-8 (eq (coding-system-base (wharf--coding)) 'utf-8))
             (by-candidate (make-hash-table :test #'equal))
             (annotations (make-hash-table :test #'equal))
             (candidates nil))
        (when (plist-get listing :parent)
          (push wharf--up candidates)
          (puthash wharf--up " parent folder" annotations))
        (when (or exporter folder-picker)
          (push wharf--here candidates)
          (puthash wharf--here
                   (cond (exporter (if (> (or (plist-get show :documentCount) 1) 1)
                                       " save here" " this folder"))
                         ((and mover (eq (plist-get listing :directoryEnabled) t)) " move here")
                         ((eq (plist-get listing :directoryEnabled) t) " choose this folder")
                         (t (propertize (format " %s" (or (plist-get listing :directoryDisabledReason) ""))
                                        'face 'wharf-reason)))
                   annotations))
        (dolist (entry (plist-get listing :entries))
          (let ((candidate (wharf--entry-candidate entry utf-8)))
            (puthash candidate entry by-candidate)
            (unless (or (eq (plist-get entry :enabled) t) exporter
                        (eq (plist-get entry :isDirectory) t))
              (setq candidate (propertize candidate 'face 'wharf-disabled))
              (puthash candidate (propertize (concat "  " (or (plist-get entry :disabledReason) "cannot be chosen"))
                                             'face 'wharf-reason)
                       annotations))
            (push candidate candidates)))
        (setq candidates (nreverse candidates))
        (when notice (message "%s" notice))
        (setq wharf--picker-notice notice)
        (if exporter
            (wharf--picker-export dialog show listing dir dir-url candidates by-candidate annotations)
          (wharf--picker-import dialog show listing dir dir-url candidates by-candidate annotations
                                multiple folder-picker))))))

(defun wharf--picker-title (show default dir)
  "The prompt for SHOW: its title, else DEFAULT, and DIR.
A mover's prompt always ends with the files it moves (`Move a.txt to').
The notice of `wharf--picker-notice', if any, on a line of its own first."
  (let ((title (plist-get show :title))
        (msg (plist-get show :message))
        (moving (wharf--picker-moving show))
        (notice (prog1 wharf--picker-notice (setq wharf--picker-notice nil))))
    (format "%s%s%s%s (%s): "
            (if notice (concat (propertize notice 'face 'error) "\n") "")
            (if (stringp title) title (or moving default))
            (if (stringp msg) (concat " — " msg) "")
            (if (and moving (stringp title)) (concat " — " moving) "")
            (abbreviate-file-name (file-name-as-directory dir)))))

(defconst wharf--picker-names-shown 3
  "How many of a mover's files its prompt names; the rest are counted.")

(defun wharf--picker-moving (show)
  "The heading of a mover's SHOW, naming its files: `Move a.txt, b.txt to'.
Nil for other dialogs."
  (when-let ((urls (append (plist-get (plist-get show :mover) :urls) nil)))
    (let ((names (mapcar #'wharf--url-name
                          (cl-subseq urls 0 (min (length urls) wharf--picker-names-shown))))
          (more (- (length urls) wharf--picker-names-shown)))
      (format "Move %s%s to" (string-join names ", ")
              (if (> more 0) (format " and %d more" more) "")))))

(defun wharf--picker-import (dialog show listing dir dir-url candidates by-candidate annotations
                                    multiple folder-picker)
  "Ask for DIALOG's picks among CANDIDATES of LISTING in DIR (DIR-URL).
SHOW is its `presenter/show'; BY-CANDIDATE maps candidates to entries;
ANNOTATIONS their annotations; MULTIPLE and FOLDER-PICKER say what it takes."
  (let* ((prompt (wharf--picker-title show (if folder-picker "Choose a folder" "Open") dir))
         (answer (wharf--picker-read dialog prompt (wharf--picker-table candidates annotations)
                                     multiple nil t)))
    (cond
     ((eq answer 'quit) (wharf--picker-dismiss dialog))
     ((or (null answer) (equal answer '("")))
      (wharf--later #'wharf--picker-list dialog dir-url nil))
     ((equal answer (list wharf--up))
      (wharf--picker-list dialog (plist-get listing :parent) nil))
     ((equal answer (list wharf--here))
      (cond
       ((not (eq (plist-get listing :directoryEnabled) t))
        (wharf--picker-list dialog dir-url (or (plist-get listing :directoryDisabledReason)
                                               "This folder cannot be chosen")))
       ((equal (plist-get show :kind) "mover") (wharf--picker-move dialog dir-url nil))
       (t (wharf--picker-choose dialog (list dir-url) dir-url))))
     ((and (= (length answer) 1)
           (eq (plist-get (gethash (car answer) by-candidate) :isDirectory) t)
           (not (and folder-picker multiple)))
      (wharf--picker-list dialog (plist-get (gethash (car answer) by-candidate) :url) nil))
     (t
      (let* ((entries (mapcar (lambda (candidate) (gethash candidate by-candidate)) answer))
             (refused (cl-find-if (lambda (entry) (and entry (not (eq (plist-get entry :enabled) t))))
                                  entries)))
        (cond
         ((memq nil entries)
          (wharf--picker-list dialog dir-url (format "No such entry: %s"
                                                     (nth (cl-position nil entries) answer))))
         (refused
          (wharf--picker-list dialog dir-url
                              (format "%s cannot be chosen: %s"
                                      (wharf--url-name (plist-get refused :url))
                                      (or (plist-get refused :disabledReason) "it is disabled"))))
         (t (wharf--picker-choose dialog (mapcar (lambda (entry) (plist-get entry :url)) entries)
                                  dir-url))))))))

(defun wharf--picker-choose (dialog urls dir-url)
  "Answer DIALOG with URLS; a refusal is shown, and asked again in DIR-URL."
  (wharf--dialog-request
   dialog "dialog/choose" (list :dialogId (wharf--dialog-id dialog) :urls (vconcat urls))
   (lambda (error _result)
     (when (and error (not (wharf--dialog-done dialog)))
       (wharf--later #'wharf--picker-list dialog dir-url (plist-get error :message))))))

(defconst wharf--name-conflict -32031
  "Wharf's nameConflict: a mover's folder holds a name of a file to move.")

(defun wharf--picker-move (dialog dir-url resolution)
  "Move DIALOG's files into DIR-URL; RESOLUTION answers a name taken there.
RESOLUTION is nil (none asked yet), \"replace\" or \"keepBoth\".  A name
taken is asked about; any other refusal is shown, and asked again in DIR-URL."
  (wharf--dialog-request
   dialog "dialog/choose"
   (append (list :dialogId (wharf--dialog-id dialog) :url dir-url)
           (when resolution (list :conflictResolution resolution)))
   (lambda (error _result)
     (when (and error (not (wharf--dialog-done dialog)))
       (if (and (eql (plist-get error :code) wharf--name-conflict) (not resolution))
           (wharf--later #'wharf--picker-conflict dialog dir-url error)
         (wharf--later #'wharf--picker-list dialog dir-url (plist-get error :message)))))))

(defun wharf--conflict-question (dir-url error)
  "The question for ERROR, the nameConflict of choosing DIR-URL."
  (let* ((data (plist-get error :data))
         (names (or (mapcar #'wharf--url-name (append (plist-get data :urls) nil))
                    (append (plist-get data :names) nil)))
         (folder (abbreviate-file-name (file-name-as-directory (wharf-url-to-file dir-url)))))
    (if (= (length names) 1)
        (format "%s is already in %s." (car names) folder)
      (format "%d names are already in %s (%s)." (length names) folder
              (string-join names ", ")))))

(defun wharf--picker-conflict (dialog dir-url error)
  "Ask what to do about ERROR, names taken in DIR-URL, for DIALOG, and do it.
Replace and Keep both choose DIR-URL again with the answer; Cancel goes
back to choosing a folder, nothing moved; \[keyboard-quit] dismisses DIALOG."
  (wharf--picker-guard dialog
    (unless (wharf--dialog-done dialog)
      (let ((answer (let ((inhibit-quit nil))
                      (condition-case nil
                          (car (read-multiple-choice
                                (wharf--conflict-question dir-url error)
                                '((?r "replace" "Replace what is there with the file moved")
                                  (?k "keep both" "Move the file under a free name, such as `name 2.txt'")
                                  (?c "cancel" "Move nothing, and choose another folder"))))
                        (quit 'quit)))))
        (cond
         ((wharf--dialog-done dialog) nil)
         ((eq answer 'quit) (wharf--picker-dismiss dialog))
         ((eq answer ?r) (wharf--picker-move dialog dir-url "replace"))
         ((eq answer ?k) (wharf--picker-move dialog dir-url "keepBoth"))
         (t (wharf--picker-list dialog dir-url "Nothing was moved: choose another folder")))))))

(defun wharf--picker-type (dialog show)
  "The content type for DIALOG to save as, asked if SHOW has several."
  (let ((types (append (plist-get show :contentTypes) nil)))
    (if (<= (length types) 1)
        (car types)
      (let* ((choices (append (plist-get show :contentTypeChoices) nil))
             (annotations (make-hash-table :test #'equal)))
        (dolist (choice choices)
          (let ((description (plist-get choice :description))
                (names (append (plist-get choice :filenames) nil)))
            (puthash (plist-get choice :contentType)
                     (format "  %s%s" (if (stringp description) description "")
                             (if names (format " (%s)" (string-join names ", ")) ""))
                     annotations)))
        (let ((answer (wharf--picker-read dialog "Save as type: " (wharf--picker-table types annotations)
                                          nil nil t)))
          (if (eq answer 'quit) 'quit (car answer)))))))

(defun wharf--suggested-name (show type)
  "The name SHOW suggests for TYPE."
  (or (cl-loop for choice across (or (plist-get show :contentTypeChoices) [])
               when (equal (plist-get choice :contentType) type)
               return (let ((names (plist-get choice :filenames)))
                        (and (> (length names) 0) (aref names 0))))
      (plist-get show :filename)
      "Untitled"))

(defun wharf--picker-export (dialog show listing dir dir-url candidates by-candidate annotations)
  "Ask where to save DIALOG, among CANDIDATES of LISTING in DIR (DIR-URL).
SHOW is its `presenter/show'; BY-CANDIDATE maps candidates to entries;
ANNOTATIONS their annotations."
  (let* ((several (> (or (plist-get show :documentCount) 1) 1))
         (type (wharf--picker-type dialog show)))
    (if (eq type 'quit)
        (wharf--picker-dismiss dialog)
      (let* ((suggested (and (not several) (wharf--suggested-name show type)))
             (label (plist-get show :filenameLabel))
             (prompt (wharf--picker-title show (cond (several "Save into")
                                                     ((stringp label) label)
                                                     (t "Save as"))
                                          dir))
             (answer (wharf--picker-read dialog prompt (wharf--picker-table candidates annotations)
                                         nil suggested nil))
             (text (and (listp answer) (car answer))))
        (cond
         ((eq answer 'quit) (wharf--picker-dismiss dialog))
         ((or (null text) (string-empty-p text))
          (wharf--picker-list dialog dir-url nil))
         ((equal text wharf--up)
          (wharf--picker-list dialog (plist-get listing :parent) nil))
         ((and several (equal text wharf--here))
          (wharf--picker-save dialog dir-url type dir-url nil))
         ((equal text wharf--here)
          (wharf--picker-list dialog dir-url "Type the name to save as"))
         ((eq (plist-get (gethash text by-candidate) :isDirectory) t)
          (wharf--picker-list dialog (plist-get (gethash text by-candidate) :url) nil))
         ((string-suffix-p "/" text)
          (wharf--picker-list dialog (wharf--url-join dir-url text) nil))
         (several
          (wharf--picker-list dialog dir-url "Choose a folder: these documents are saved into it"))
         (t
          (let* ((entry (gethash text by-candidate))
                 (target (if entry (plist-get entry :url) (wharf--url-join dir-url text)))
                 (file (wharf-url-to-file target)))
            (if (and (file-exists-p file)
                     (not (y-or-n-p (format "%s already exists.  Replace? "
                                            (file-name-nondirectory file)))))
                (wharf--picker-list dialog dir-url nil)
              (wharf--picker-save dialog target type dir-url (file-exists-p file))))))))))

(defun wharf--picker-save (dialog target type dir-url overwrite)
  "Save DIALOG's documents to TARGET as TYPE, replacing when OVERWRITE.
A refusal is shown and the picker asks again in DIR-URL; a file that
appeared meanwhile is asked about."
  (wharf--dialog-request
   dialog "dialog/choose"
   (append (list :dialogId (wharf--dialog-id dialog) :url target
                 :overwrite (if overwrite t :json-false))
           (when type (list :contentType type)))
   (lambda (error _result)
     (when (and error (not (wharf--dialog-done dialog)))
       (if (and (eql (plist-get error :code) -32016) (not overwrite))
           (wharf--later
            (lambda ()
              (wharf--picker-guard dialog
                (let ((answer (let ((inhibit-quit nil))
                                (condition-case nil
                                    (y-or-n-p (format "%s  Replace? " (plist-get error :message)))
                                  (quit 'quit)))))
                  (cond ((eq answer 'quit) (wharf--picker-dismiss dialog))
                        (answer (wharf--picker-save dialog target type dir-url t))
                        (t (wharf--picker-list dialog dir-url nil)))))))
         (wharf--later #'wharf--picker-list dialog dir-url (plist-get error :message)))))))

(provide 'wharf-picker)
;;; wharf-picker.el ends here
