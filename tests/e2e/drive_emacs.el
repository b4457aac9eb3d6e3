;;; drive_emacs.el --- Drive Foehn from real Emacs with eglot, in batch mode  -*- lexical-binding: t -*-

;; Opens a file, connects eglot to `foehn serve', lists the tools, asks for code actions, runs a
;; task whose edit is confirmed in a `foehn/confirm' handler and applied by eglot to the
;; buffer, then writes what it saw as JSON.  Arguments come from the environment:
;; FOEHN_TEST_ROOT, FOEHN_TEST_FILE, FOEHN_TEST_OUT, FOEHN_TEST_PYTHON.

(require 'eglot)
(require 'json)

(defvar foehn-root (file-name-as-directory (getenv "FOEHN_TEST_ROOT")))
(defvar foehn-report nil)
(defvar foehn-confirmations nil)

(defun foehn-finish (code)
  (with-temp-file (getenv "FOEHN_TEST_OUT")
    (insert (json-encode (cons (cons "confirmations" (vconcat (reverse foehn-confirmations)))
                               foehn-report))))
  (kill-emacs code))

(defun foehn-note (key value)
  (push (cons key value) foehn-report))

(cl-defmethod eglot-handle-request (_server (_method (eql foehn/confirm)) &rest params)
  (push params foehn-confirmations)
  (list :decision "allow"))

;; A temporary folder is no VC project: name it as one, so eglot does not ask.
(add-hook 'project-find-functions (lambda (_dir) (cons 'transient foehn-root)))
(setq eglot-sync-connect t
      eglot-connect-timeout 60
      eglot-confirm-server-initiated-edits nil
      eglot-autoshutdown nil)
;; eglot 1.9 wants the major mode as a list.
(add-to-list 'eglot-server-programs
             `((python-mode) . (,(getenv "FOEHN_TEST_PYTHON") "-m" "foehn_lsp" "serve"
                                :initializationOptions (:confirmRequest t))))

(condition-case err
    (progn
      (find-file (getenv "FOEHN_TEST_FILE"))
      (python-mode)
      (foehn-note "before" (buffer-string))
      (apply #'eglot (eglot--guess-contact))
      (let ((server (eglot-current-server)))
        (unless server (error "eglot did not connect"))
        (let ((tools (jsonrpc-request server :workspace/executeCommand
                                      '(:command "foehn.tools" :arguments [])
                                      :timeout 60)))
          (foehn-note "tools" (vconcat (mapcar (lambda (tool) (plist-get tool :name))
                                               (plist-get tools :tools)))))
        (let ((actions (jsonrpc-request
                        server :textDocument/codeAction
                        (list :textDocument (eglot--TextDocumentIdentifier)
                              :range '(:start (:line 0 :character 0)
                                       :end (:line 1 :character 5))
                              :context '(:diagnostics []))
                        :timeout 60)))
          (foehn-note "actions" (vconcat (mapcar (lambda (action) (plist-get action :title))
                                                 actions))))
        (let ((result (jsonrpc-request
                       server :workspace/executeCommand
                       (list :command "foehn.run"
                             :arguments (vector (list :task "Fix the TODO"
                                                      :uri (plist-get
                                                            (eglot--TextDocumentIdentifier)
                                                            :uri))))
                       :timeout 120)))
          (foehn-note "result" result))
        (foehn-note "after" (buffer-string))
        (foehn-note "modified" (if (buffer-modified-p) t :json-false))
        (eglot-shutdown server))
      (foehn-finish 0))
  (error
   (foehn-note "error" (format "%S" err))
   (foehn-finish 3)))

;;; drive_emacs.el ends here
