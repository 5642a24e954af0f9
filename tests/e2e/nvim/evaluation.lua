-- Headless Neovim 0.7+ on the evaluation save path: open an extracted run whose first record
-- is right, wait for the suite's findings, make the price wrong in the buffer, check the edit
-- alone changes nothing, `:write` (Neovim sends didSave) and wait for the mismatch on the value.
-- Prints "OK ..." lines the test checks; exits non-zero on any failure.
local file = os.getenv("EVALSCHEMA_FILE")
local expect_col = tonumber(os.getenv("EVALSCHEMA_EXPECT_COL"))
local expect_end = tonumber(os.getenv("EVALSCHEMA_EXPECT_END_COL"))
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local fail = h.fail
local started = vim.loop.hrtime()
local function ms() return math.floor((vim.loop.hrtime() - started) / 1e6) end

vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
-- No file watcher: only the editor's didSave can start the run after the write.
local server = h.start(file, buf, { watchFiles = false })
local client = vim.lsp.get_client_by_id(server.id)
local saves = 0
local notify = client.notify
client.notify = function(method, params)
  if method == "textDocument/didSave" then saves = saves + 1 end
  return notify(method, params)
end

local function code(d)
  return tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code))
end
local function ours()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == "evalschema" then table.insert(out, d) end
  end
  return out
end
local function mismatch_on_line0()
  for _, d in ipairs(ours()) do
    if d.lnum == 0 and code(d) == "mismatch" then return d end
  end
  return nil
end
local function dump(tag, list)
  for _, d in ipairs(list) do
    io.stdout:write(string.format("%s %d:%d-%d:%d %s %s\n", tag, d.lnum, d.col, d.end_lnum,
      d.end_col, code(d), d.message))
  end
end

-- 1. The run at startup: findings on the other records, none on the right first record.
local ok = vim.wait(30000, function() return server.exited or #ours() > 0 end, 50)
if server.exited then fail("server server.exited") end
if not ok then fail("no evalschema diagnostics after startup") end
io.stdout:write(string.format("OK first diagnostics after %d ms\n", ms()))
dump("OK before", ours())
if mismatch_on_line0() then fail("mismatch on line 0 while its price is right") end
local others = 0
for _, d in ipairs(ours()) do if d.lnum > 0 then others = others + 1 end end
if others == 0 then fail("no findings on the other records") end

-- 2. Make the price wrong in the buffer only: with runOn "save" the edit starts no run.
if not client.resolved_capabilities.text_document_save then
  fail("server does not ask for didSave")
end
io.stdout:write(string.format("OK save capability includeText=%s encoding=%s\n",
  tostring(client.resolved_capabilities.text_document_save_include_text),
  client.offset_encoding))
local line = vim.api.nvim_buf_get_lines(buf, 0, 1, true)[1]
local s = line:find("12.5", 1, true)
if not s then fail("no 12.5 on line 0: " .. line) end
vim.api.nvim_buf_set_text(buf, 0, s - 1, 0, s + 3, { "13.9" })
vim.wait(800, function() return server.exited or mismatch_on_line0() ~= nil end, 50)
if server.exited then fail("server server.exited after the edit") end
if mismatch_on_line0() then fail("mismatch on line 0 before the save (runOn is save)") end

-- 3. Save: Neovim sends didSave (after flushing the pending didChange); the run follows.
local before_save = ms()
vim.cmd("write")
if saves ~= 1 then fail("didSave sent " .. saves .. " times") end
ok = vim.wait(30000, function() return server.exited or mismatch_on_line0() ~= nil end, 50)
if server.exited then fail("server server.exited after the save") end
if not ok then
  dump("FAIL after", ours())
  fail("no mismatch on line 0 after the save")
end
io.stdout:write(string.format("OK mismatch %d ms after the save\n", ms() - before_save))
dump("OK after", ours())

-- 4. The exact place (byte columns, converted by Neovim from UTF-16) and the message.
local d = mismatch_on_line0()
io.stdout:write(string.format("OK line0 %d:%d-%d:%d %s %s\n", d.lnum, d.col, d.end_lnum,
  d.end_col, code(d), d.message))
if d.end_lnum ~= 0 or d.col ~= expect_col or d.end_col ~= expect_end then
  fail(string.format("range %d:%d-%d:%d, expected 0:%d-0:%d", d.lnum, d.col, d.end_lnum,
    d.end_col, expect_col, expect_end))
end
if not d.message:find("13.9", 1, true) or not d.message:find("gold 12.5", 1, true) then
  fail("message " .. d.message)
end
vim.lsp.stop_client(server.id)
vim.cmd("qall!")
