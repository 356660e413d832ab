-- A Neovim session with `strata lsp` as its language server, driven
-- headless by tests/neovim.rs: open a blueprint of a catalogue, break its
-- `template:` in the buffer, wait for Neovim to hold the diagnostic, fix
-- it, wait for the marks to go, ask for the definition of the template,
-- and stop the server. What Neovim saw is written as JSON to $OUT.
local strata, root, file, out = os.getenv("STRATA"), os.getenv("ROOT"), os.getenv("FILE"), os.getenv("OUT")
local seen = {}

local function run()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buffer = vim.api.nvim_get_current_buf()
  local client = vim.lsp.start_client({
    name = "strata",
    cmd = { strata, "lsp" },
    root_dir = root,
    on_exit = function(code) seen.exit = code end,
  })
  assert(client, "the client starts")
  vim.lsp.buf_attach_client(buffer, client)
  assert(vim.wait(20000, function()
    local running = vim.lsp.get_client_by_id(client)
    return running ~= nil and running.initialized
  end, 20), "the server initializes")

  -- Line 3 is `template: go`: a typo in the buffer, not saved.
  vim.api.nvim_buf_set_lines(buffer, 2, 3, false, { "template: pyhton" })
  assert(vim.wait(20000, function() return #vim.diagnostic.get(buffer) > 0 end, 20), "diagnostics arrive")
  local diagnostic = vim.diagnostic.get(buffer)[1]
  seen.broken = {
    code = diagnostic.code or (diagnostic.user_data and diagnostic.user_data.lsp and diagnostic.user_data.lsp.code),
    line = diagnostic.lnum,
    col = diagnostic.col,
    end_col = diagnostic.end_col,
    message = diagnostic.message,
  }

  vim.api.nvim_buf_set_lines(buffer, 2, 3, false, { "template: go" })
  assert(vim.wait(20000, function() return #vim.diagnostic.get(buffer) == 0 end, 20), "the marks go")
  seen.fixed = #vim.diagnostic.get(buffer)

  local params = { textDocument = { uri = vim.uri_from_bufnr(buffer) }, position = { line = 2, character = 11 } }
  local answers = vim.lsp.buf_request_sync(buffer, "textDocument/definition", params, 20000)
  local answer = answers and answers[client]
  assert(answer and answer.result, "a definition")
  seen.definition = answer.result

  -- `shutdown`, then `exit`: the server ends with status 0.
  vim.lsp.stop_client(client)
  assert(vim.wait(20000, function() return seen.exit ~= nil end, 20), "the server exits")
end

local ok, problem = pcall(run)
seen.ok = ok
seen.problem = problem and tostring(problem) or nil
local handle = assert(io.open(out, "w"))
handle:write(vim.fn.json_encode(seen))
handle:close()
vim.cmd(ok and "qall!" or "cquit!")
