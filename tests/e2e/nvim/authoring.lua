-- Headless Neovim 0.7+ as a second, independent LSP client: open an eval schema with an
-- unknown comparator, wait for the diagnostic on the value, hover it, complete it.
-- Prints "OK ..." lines the test checks; exits non-zero on any failure.
local file = os.getenv("EVALSCHEMA_FILE")
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local fail = h.fail

vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
vim.bo[buf].filetype = "json"
local server = h.start(file, buf)

local ok = vim.wait(20000, function() return server.exited or #vim.diagnostic.get(buf) > 0 end, 50)
if server.exited then fail("server server.exited") end
if not ok then fail("no diagnostics") end
for _, d in ipairs(vim.diagnostic.get(buf)) do
  io.stdout:write(string.format("OK diagnostic %d:%d-%d:%d %s %s\n", d.lnum, d.col, d.end_lnum,
    d.end_col, tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)),
    d.message))
end

local function at(prefix)
  return {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = tonumber(os.getenv(prefix .. "_LINE")),
                 character = tonumber(os.getenv(prefix .. "_COL")) },
  }
end
local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", at("EVALSCHEMA_HOVER"), 10000)
local text = nil
for _, res in pairs(hover or {}) do
  if res.result and res.result.contents then text = res.result.contents.value end
end
if not text then fail("no hover") end
io.stdout:write("OK hover " .. text:gsub("\n", " "):sub(1, 120) .. "\n")

local comp = vim.lsp.buf_request_sync(buf, "textDocument/completion", at("EVALSCHEMA_COMPLETE"),
  10000)
local labels = {}
for _, res in pairs(comp or {}) do
  local items = res.result and (res.result.items or res.result) or {}
  for _, item in ipairs(items) do table.insert(labels, item.label) end
end
if #labels == 0 then fail("no completion") end
io.stdout:write("OK completion " .. table.concat(labels, ",") .. "\n")
vim.lsp.stop_client(server.id)
vim.cmd("qall!")
