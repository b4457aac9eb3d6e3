-- Drives Foehn from a real, headless Neovim: open a file, run foehn.run, confirm in the
-- foehn/confirm handler, and report what the buffer looks like after the edit and after `u`.
-- Arguments come from the environment: FOEHN_TEST_ROOT, FOEHN_TEST_FILE, FOEHN_TEST_OUT,
-- FOEHN_TEST_PYTHON.
local root = os.getenv('FOEHN_TEST_ROOT')
local file = os.getenv('FOEHN_TEST_FILE')
local out = os.getenv('FOEHN_TEST_OUT')
local report = { confirmations = {} }

local function finish(code)
  local handle = assert(io.open(out, 'w'))
  handle:write(vim.json.encode(report))
  handle:close()
  vim.cmd((code == 0) and 'qall!' or 'cquit ' .. code)
end

vim.cmd('edit ' .. file)
local bufnr = vim.api.nvim_get_current_buf()
report.before = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)

local client_id = vim.lsp.start({
  name = 'foehn',
  cmd = { os.getenv('FOEHN_TEST_PYTHON'), '-m', 'foehn_lsp', 'serve' },
  root_dir = root,
  init_options = { confirmRequest = true },
  handlers = {
    ['foehn/confirm'] = function(_, params)
      table.insert(report.confirmations, params)
      return { decision = 'allow' }
    end,
  },
}, { bufnr = bufnr })
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(20000, function() return client.initialized end, 50) then
  report.error = 'the server did not initialize'
  return finish(2)
end

local response = client:request_sync('workspace/executeCommand', {
  command = 'foehn.run', arguments = { { task = 'Fix the TODO', uri = vim.uri_from_bufnr(bufnr) } },
}, 120000, bufnr)
if response == nil or response.err ~= nil then
  report.error = vim.inspect(response)
  return finish(3)
end
report.result = response.result
report.after = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
report.modified = vim.bo[bufnr].modified
vim.api.nvim_buf_call(bufnr, function() vim.cmd('silent undo') end)
report.undone = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
client:stop()
finish(0)
