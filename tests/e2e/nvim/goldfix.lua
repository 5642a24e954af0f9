-- Headless Neovim 0.7+: accept an extracted value as gold. Open an extracted run and its gold
-- file, wait for the mismatch on line 0 (after accents and an emoji), run the code action
-- "Accept extracted value as gold" through vim.lsp.buf.code_action, `:write` the gold buffer
-- the edit changed, and wait for the mismatch to go. Prints "OK ..." lines the test checks;
-- exits non-zero on any failure.
local file = os.getenv("EVALSCHEMA_FILE")
local gold = os.getenv("EVALSCHEMA_GOLD")
local ACCEPT = "Accept extracted value as gold"
local h = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/helpers.lua")
local fail = h.fail

vim.cmd("edit " .. file)
local buf = vim.api.nvim_get_current_buf()
vim.cmd("badd " .. gold)
local gold_buf = vim.fn.bufnr(gold)
vim.fn.bufload(gold_buf)
local server = h.start(file, buf, { watchFiles = false })
vim.lsp.buf_attach_client(gold_buf, server.id)

local function code(d)
  return tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code))
end
local function mismatch_on_line0()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == "evalschema" and d.lnum == 0 and code(d) == "mismatch" then return d end
  end
  return nil
end

-- 1. The run at startup: the price of record a is wrong.
local ok = vim.wait(30000, function() return server.exited or mismatch_on_line0() ~= nil end, 50)
if server.exited then fail("server server.exited") end
if not ok then fail("no mismatch on line 0 after startup") end
local d = mismatch_on_line0()
io.stdout:write(string.format("OK mismatch %d:%d-%d:%d %s\n", d.lnum, d.col, d.end_lnum,
  d.end_col, d.message))

-- 2. The code action on that diagnostic. Neovim 0.7 would send its range in byte columns
-- (vim.lsp.diagnostic.get_line_diagnostics): give it back in UTF-16, as the server sent it
-- and as 0.8+ does. 0.8+ filters and applies; 0.7 asks vim.ui.select.
vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
local line = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, true)[1]
local function utf16(col)
  local _, units = vim.str_utfindex(line, col)
  return units
end
local lsp_diag = vim.tbl_extend("force", (d.user_data and d.user_data.lsp) or {}, {
  range = { start = { line = d.lnum, character = utf16(d.col) },
            ["end"] = { line = d.end_lnum, character = utf16(d.end_col) } },
  message = d.message, source = d.source, code = code(d), severity = d.severity,
})
io.stdout:write(string.format("OK utf16 %d-%d\n", lsp_diag.range.start.character,
  lsp_diag.range["end"].character))
local offered = {}
local function is_accept(action)
  table.insert(offered, action.title)
  return action.title:sub(1, #ACCEPT) == ACCEPT
end
local context = { diagnostics = { lsp_diag }, only = { "quickfix" } }
if vim.fn.has("nvim-0.8") == 1 then
  vim.lsp.buf.code_action({ context = context, filter = is_accept, apply = true })
else
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      local action = item[2]
      if is_accept(action) then return on_choice(item) end
    end
    on_choice(nil)
  end
  vim.lsp.buf.code_action(context)
end
local function gold_line0() return vim.api.nvim_buf_get_lines(gold_buf, 0, 1, true)[1] end
local before = gold_line0()
ok = vim.wait(15000, function() return server.exited or gold_line0() ~= before end, 50)
if server.exited then fail("server server.exited after the code action") end
if not ok then fail("the gold buffer did not change; offered: " .. table.concat(offered, " | ")) end
io.stdout:write("OK offered " .. table.concat(offered, " | ") .. "\n")
io.stdout:write("OK gold0 " .. gold_line0() .. "\n")
io.stdout:write(string.format("OK gold lines %d\n", vim.api.nvim_buf_line_count(gold_buf)))

-- 3. Save the gold buffer (didSave): the run that follows has no mismatch on line 0.
vim.api.nvim_buf_call(gold_buf, function() vim.cmd("write") end)
ok = vim.wait(30000, function() return server.exited or mismatch_on_line0() == nil end, 50)
if server.exited then fail("server server.exited after the save") end
if not ok then fail("the mismatch is still there after saving gold") end
io.stdout:write("OK mismatch gone\n")
vim.lsp.stop_client(server.id)
vim.cmd("qall!")
