"""An app's portal OpenFile drawn by a Neovim serving the desktop (`:WharfServeDesktop`).

Run by Tests/portal/run.sh (PORTAL_TESTS=test_nvim_presenter.py, NVIM naming Neovim) in the
portal rig: the real xdg-desktop-portal frontend on a private session bus, `wharf portal
--presenter auto`, the Wharf daemon (`wharf --listen`) in the rig's XDG_RUNTIME_DIR, and a
headless Neovim with the plugin, registered as the daemon's presenter connection and driven
with real keys over its server socket (`nvim --server … --remote-send`).
"""
import json
import os
import subprocess
import tempfile
import unittest

from test_portal import RIG, WHARF, Call, GLib, PortalCase, uri, wait_for

NVIM = os.environ["NVIM"]
PLUGIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "nvim")

# Loaded into the Neovim: what the test reads of it, as JSON.
PROBE = """
function _G.wharf_probe()
  local state = { serving = require('wharf.serve').status().serving }
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local b = vim.api.nvim_win_get_buf(w)
    if vim.bo[b].filetype == 'wharf' then
      local title = vim.api.nvim_win_get_config(w).title
      local text = {}
      for _, chunk in ipairs(type(title) == 'table' and title or {}) do table.insert(text, chunk[1]) end
      state.title = table.concat(text)
      state.lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
    end
  end
  return vim.json.encode(state)
end
"""


class NeovimPresenterTests(PortalCase):
    def setUp(self):
        super().setUp()
        self.socket_path = os.path.join(os.environ["XDG_RUNTIME_DIR"], "wharf", "wharf.sock")
        log = open(os.path.join(RIG, "nvim-daemon.log"), "w")
        self.addCleanup(log.close)
        daemon = subprocess.Popen([WHARF, "--listen", "--state-dir", ":memory:", "--log-level", "info"], stderr=log)
        self.addCleanup(self.stop_daemon, daemon)
        wait_for(lambda: os.path.exists(self.socket_path), what="the daemon's socket")

        work = tempfile.mkdtemp(dir=RIG, prefix="nvim-")
        probe = os.path.join(work, "probe.lua")
        with open(probe, "w") as out:
            out.write(PROBE)
        self.server = os.path.join(work, "nvim.sock")
        setup = "lua require('wharf').setup({ cmd = { %s, '--state-dir', ':memory:' }, window = { width = 0.95 } })" % json.dumps(WHARF)
        self.nvim = subprocess.Popen(
            [NVIM, "--clean", "--headless", "--listen", self.server, "--cmd", "set rtp^=" + PLUGIN,
             "-c", "luafile " + probe, "-c", setup, "-c", "WharfServeDesktop"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self.quit_nvim)
        wait_for(lambda: os.path.exists(self.server) and self.probe().get("serving"), what="Neovim to serve the desktop")

    def stop_daemon(self, daemon):
        daemon.terminate()
        self.assertEqual(daemon.wait(10), 0, "the daemon's exit status")

    def quit_nvim(self):
        if self.nvim.poll() is None:
            self.keys("<Esc>:qa!<CR>")
            try:
                self.nvim.wait(10)
            except subprocess.TimeoutExpired:
                self.nvim.kill()
                self.nvim.wait()
                raise

    def remote(self, *args):
        return subprocess.run([NVIM, "--clean", "--headless", "--server", self.server, *args],
                              capture_output=True, text=True, timeout=10).stdout

    def probe(self):
        try:
            return json.loads(self.remote("--remote-expr", "luaeval('_G.wharf_probe()')") or "{}")
        except (subprocess.TimeoutExpired, json.JSONDecodeError):
            return {}

    def keys(self, keys):
        self.remote("--remote-send", keys)

    def picker(self, what):
        found = {}

        def shown():
            state = self.probe()
            if state.get("title") and not any("loading" in line for line in state.get("lines", [])):
                found.update(state)
                return True
            return False
        wait_for(shown, what=what)
        return found

    def test_an_apps_open_file_is_drawn_and_answered_in_neovim(self):
        self.start([], presenter="auto")
        # The dialog opens in the home folder: Debian 12's frontend (1.16) does not pass
        # OpenFile's current_folder on.
        note = os.path.join(os.environ["HOME"], "note-for-nvim.txt")
        with open(note, "w") as out:
            out.write("from the home folder\n")
        self.addCleanup(os.remove, note)
        call = Call("OpenFile", title="Pick a note")
        state = self.picker("the portal's dialog in Neovim")
        # The frontend gives a host app's calls no app id: the portal names it so.
        self.assertTrue(state["title"].startswith(" an unsandboxed app (portal): Pick a note · All files · "),
                        state["title"])
        self.assertIn("  note-for-nvim.txt", state["lines"], state)
        line = state["lines"].index("  note-for-nvim.txt") + 1
        self.keys(f"{line}G<CR>")
        response, results = call.wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(note)])
        self.assertIn("shown by the daemon's presenter connection", self.backend.text())
        wait_for(lambda: "title" not in self.probe(), what="the picker to close")

    def test_the_apps_filters_and_choices_are_drawn_and_answered_in_neovim(self):
        self.start([], presenter="auto")
        note = os.path.join(os.environ["HOME"], "note-for-nvim.md")
        with open(note, "w") as out:
            out.write("# from the home folder\n")
        self.addCleanup(os.remove, note)
        text, markdown = ("Text", [(0, "*.txt")]), ("Markdown", [(0, "*.md")])
        choices = [("readonly", "Read only", [], "false")]
        call = Call("OpenFile", {"filters": GLib.Variant("a(sa(us))", [text, markdown]),
                                 "choices": GLib.Variant("a(ssa(ss)s)", choices)}, title="Pick a note")
        state = self.picker("the portal's dialog in Neovim")
        self.assertIn(" · Text · ", state["title"])
        self.keys("t")
        self.keys("2<CR>")
        wait_for(lambda: " · Markdown · " in self.probe().get("title", ""), what="Markdown in force")
        self.keys("c")
        self.keys("1<CR>")
        state = self.picker("the picker after the choice")
        line = state["lines"].index("  note-for-nvim.md") + 1
        self.keys(f"{line}G<CR>")
        response, results = call.wait()
        self.assertEqual(response, 0, self.backend.text())
        self.assertEqual(results["uris"], [uri(note)])
        self.assertEqual(results["current_filter"], markdown)
        self.assertEqual(results["choices"], [("readonly", "true")])

    def test_escape_in_neovim_is_the_persons_cancel(self):
        self.start([], presenter="auto")
        call = Call("OpenFile", title="Pick a note")
        self.picker("the portal's dialog in Neovim")
        self.keys("<Esc>")
        response, _ = call.wait()
        self.assertEqual(response, 1, self.backend.text())


if __name__ == "__main__":
    unittest.main(verbosity=2)
