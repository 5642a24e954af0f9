-- What the headless Neovim scripts share: failing loudly, and starting the server on a file.
-- Loaded with dofile (no plugin path in a `--noplugin -u` run).
local M = {}

--- Prints "FAIL msg" (the tests look for it) and exits Neovim with status 1.
function M.fail(msg)
  io.stdout:write("FAIL " .. msg .. "\n")
  vim.cmd("cquit 1")
end

--- Starts the server (EVALSCHEMA_PYTHON) for the folder of `file` and attaches it to `buf`.
--- Returns `{id, exited}`; `exited` turns true if the server exits.
function M.start(file, buf, init_options)
  local server = { exited = false }
  server.id = vim.lsp.start_client({
    name = "evalschema",
    cmd = { os.getenv("EVALSCHEMA_PYTHON"), "-P", "-m", "evalschema_server", "--stdio" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
    init_options = init_options,
    on_exit = function() server.exited = true end,
  })
  if not server.id then M.fail("client did not start") end
  vim.lsp.buf_attach_client(buf, server.id)
  return server
end

return M
