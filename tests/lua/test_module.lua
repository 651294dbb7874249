--[[
Tests of the Lua module autosize.so and of etc/job_submit.lua, run by the
real Lua 5.1 interpreter (lua5.1), from the repository root:

    lua5.1 tests/lua/test_module.lua [BUILD]

BUILD (default: $AUTOSIZE_BUILD or "build") holds autosize.so and the
autosize command, whose plans the module must match. job_submit.lua runs
against a fake `slurm` table and fake job_desc tables: only Slurm's API
surface is faked (log_user/log_error format their arguments as Slurm's
do); the integration tests run it inside a real slurmctld.
]]

local BUILD = arg[1] or os.getenv("AUTOSIZE_BUILD") or "build"
package.cpath = BUILD .. "/?.so;" .. package.cpath

local passed, failed = 0, 0

local function check(name, cond, detail)
	if cond then
		passed = passed + 1
	else
		failed = failed + 1
		print("FAIL: " .. name .. (detail and (": " .. tostring(detail))
			or ""))
	end
end

local function sh(cmd)
	local f = io.popen(cmd, "r")
	local out = f:read("*a")
	f:close()
	return out
end

-- Files written here are dated a few minutes back, each at its own
-- second: slurmctld's module waits until a policy file is a couple of
-- seconds old (a file being written must not load), and tells versions
-- apart by their time. write_now keeps the real time.
local backdate = 0
local function write_now(path, text)
	local f = assert(io.open(path, "w"))
	f:write(text)
	f:close()
end

local function write(path, text)
	write_now(path, text)
	backdate = backdate + 1
	assert(os.execute(string.format("touch -d @%d '%s'",
		os.time() - 600 + backdate, path)) == 0)
end

local function read(path)
	local f = assert(io.open(path, "r"))
	local text = f:read("*a")
	f:close()
	return text
end

local TMP = sh("mktemp -d"):gsub("%s+$", "")
assert(TMP ~= "", "mktemp -d failed")
local POLICY_TEXT = read("etc/autosize.yaml")

-- A copy of the example policy with some defaults replaced.
local function policy_with(path, subs)
	local text = POLICY_TEXT
	for key, value in pairs(subs or {}) do
		local n
		text, n = text:gsub("\n  " .. key .. ": [%w_]+",
			"\n  " .. key .. ": " .. value, 1)
		assert(n == 1, "policy key " .. key)
	end
	write(path, text)
	return path
end

local P = "_SLURM_SPANK_OPTION_autosize_"
-- spank_job_env as Slurm gives it: a 0-based array of strings.
local function env(...)
	local t, args = {}, { ... }
	for i, v in ipairs(args) do
		t[i - 1] = v
	end
	return t
end

-- What `autosize plan --json` says for the same options.
local function cli_plan(policy, args)
	local out = sh(BUILD .. "/autosize plan --json --policy " .. policy ..
		" " .. args .. " 2>&1")
	return {
		feasible = out:match('"feasible":(%a+)') == "true",
		nodes = tonumber(out:match('"nodes":(%d+)')),
		gpus_per_node = tonumber(out:match('"gpus_per_node":(%d+)')),
		time_limit = tonumber(out:match('"time_limit_min":(%d+)')),
		partition = out:match('"partition":"([^"]*)"'),
		raw = out,
	}
end

-- ---------------------------------------------------------------- module
local ok, autosize = pcall(require, "autosize")
check("require autosize from " .. BUILD, ok and type(autosize) == "table",
	autosize)
if not ok then
	print(string.format("%d passed, %d failed", passed, failed))
	os.exit(1)
end
check("version", type(autosize.version) == "string")
-- The Slurm the module was built for: 22.05 (and older) spell a GPU
-- entry "gres:gpu:N", 23.02 and newer "gres/gpu:N" (outside slurmctld
-- there is no running Slurm to ask).
local slurm_info = autosize.slurm or {}
local built = slurm_info.built_for
local built_mm = built and tonumber(built:match("^(%d+)")) * 100 +
	tonumber(built:match("^%d+%.(%d+)")) or 0
check("slurm: built_for and tres_gpu",
	slurm_info.api_major == nil and
	slurm_info.tres_gpu == (built_mm >= 2302 and "gres/gpu" or "gres:gpu"),
	tostring(built) .. " " .. tostring(slurm_info.tres_gpu))
local TRES_GPU = slurm_info.tres_gpu or "gres:gpu"
local syms = sh("nm -D --defined-only " .. BUILD ..
	"/autosize.so 2>/dev/null | awk '{print $3}'")
check("only luaopen_autosize exported",
	syms == "" or syms:gsub("%s+$", "") == "luaopen_autosize", syms)

-- ------------------------------------------------------- load_policy
local good = policy_with(TMP .. "/good.yaml")
local live = TMP .. "/live.yaml"
write(live, read(good))
local r, err = autosize.load_policy(live)
check("load good policy", r == true, err)
local info = autosize.policy_info()
check("policy_info source", info.source == live, info.source)
check("policy_info partitions", #info.partitions == 3 and
	info.partitions[1] == "a100")
check("load same file again: nothing to report",
	autosize.load_policy(live) == true)

-- Break it (the size changes): the last good policy stays, error once.
write(live, read(good) .. "\nbogus_key: 1\n")
r, err = autosize.load_policy(live)
check("broken policy reports an error", r == nil and type(err) == "string",
	err)
check("error names the key and keeps the old policy",
	err and err:find("bogus_key") and err:find("keeping"), err)
r, err = autosize.load_policy(live)
check("same broken version reported only once", r == true, err)
check("last good policy still in use",
	#autosize.policy_info().partitions == 3 and
	autosize.policy_info().on_unfit == "reject")
local d = autosize.plan(env(P .. "model=llama-3-8b",
	P .. "train_tokens=1e10"), { partition = "h100" })
check("plan works on the last good policy", d and d.action == "rewrite")

-- Fix it with a change: reloaded.
policy_with(live, { on_unfit = "warn" })
r, err = autosize.load_policy(live)
check("fixed policy reloads", r == true, err)
check("reloaded policy in use", autosize.policy_info().on_unfit == "warn")
-- A file that disappears: error once, policy kept.
r, err = autosize.load_policy(TMP .. "/missing.yaml")
check("missing file reports once", r == nil and err and
	err:find("missing.yaml"), err)
check("missing file second time quiet",
	autosize.load_policy(TMP .. "/missing.yaml") == true)
check("policy kept after missing file",
	autosize.policy_info().on_unfit == "warn" and
	autosize.policy_info().source == live)
r, err = autosize.load_policy(nil)
check("load_policy(nil)", r == nil and err and err:find("string"), err)
r, err = autosize.load_policy({})
check("load_policy(table)", r == nil and err, err)
r, err = autosize.load_policy("")
check("load_policy('')", r == nil and err, err)

-- A fresh process that never loaded a good policy: built-in defaults,
-- error once, autosize jobs pass (on_error pass).
local fresh = sh("lua5.1 -e '" ..
	"package.cpath=\"" .. BUILD .. "/?.so;\"..package.cpath " ..
	"local a=require(\"autosize\") " ..
	"local r1,e1=a.load_policy(\"" .. TMP .. "/nothing.yaml\") " ..
	"local r2=a.load_policy(\"" .. TMP .. "/nothing.yaml\") " ..
	"local d=a.plan({[0]=\"" .. P .. "model_params=7e9\"},{}) " ..
	"print(tostring(r1)..\"|\"..tostring(e1 and e1:find(\"built%-in\"))" ..
	"..\"|\"..tostring(r2)..\"|\"..tostring(a.policy_info().builtin)" ..
	"..\"|\"..d.action..\"|\"..tostring(d.error ~= nil))' 2>&1")
check("no policy ever: defaults, reported once, job passes",
	fresh:match("^nil|%d+|true|true|none|true"), fresh)

-- Back to the example policy for the plan tests.
r, err = autosize.load_policy(good)
check("load example policy", r == true, err)

-- ------------------------------------------------------------ plan()
check("plan(nil env) is nil", autosize.plan(nil, {}) == nil)
d, err = autosize.plan(env("PATH=/bin", "HOME=/root"), {})
check("env without options is nil, no error", d == nil and err == nil, err)
d, err = autosize.plan(env("AUTOSIZE_MODEL=layers=2"), {})
check("AUTOSIZE_MODEL alone is not an autosize job", d == nil and
	err == nil, err)

local cases = {
	{ "model_params=70e9 train_tokens=1e12", "h100" },
	{ "model=llama-3-8b train_tokens=1e11", "a100" },
	{ "model_params=13e9 train_tokens=200B", "l40s" },
	{ "model=llama-3-70b train_tokens=1T train_time=30d", "h100" },
	{ "model=qwen2.5-7b train_tokens=5e10 train_mode=lora", "a100" },
	{ "model=mixtral-8x7b train_tokens=1e11", "h100" },
}
for _, c in ipairs(cases) do
	local e, cli = {}, {}
	for opt, val in c[1]:gmatch("([%w_]+)=(%S+)") do
		e[#e + 1] = P .. opt .. "=" .. val
		cli[#cli + 1] = "--" .. opt:gsub("_", "-") .. "=" .. val
	end
	local t = {}
	for i, v in ipairs(e) do t[i - 1] = v end
	d, err = autosize.plan(t, { partition = c[2],
		min_nodes = autosize.NO_VAL, max_nodes = autosize.NO_VAL,
		time_limit = autosize.NO_VAL })
	local want = cli_plan(good, "--partition " .. c[2] .. " " ..
		table.concat(cli, " "))
	local name = c[1] .. " on " .. c[2]
	check(name .. ": plan", d and d.action == "rewrite", err or
		(d and d.message))
	if d and d.action == "rewrite" then
		check(name .. ": nodes as the CLI", d.min_nodes == want.nodes and
			d.max_nodes == want.nodes, d.min_nodes .. " vs " ..
			tostring(want.nodes))
		check(name .. ": GPUs per node as the CLI",
			d.gpus_per_node == want.gpus_per_node)
		check(name .. ": time limit as the CLI",
			d.time_limit == want.time_limit,
			tostring(d.time_limit) .. " vs " ..
			tostring(want.time_limit))
		check(name .. ": writes nodes, GPUs, time, not partition",
			d.set.nodes and d.set.gpus and d.set.time and
			not d.set.partition)
		check(name .. ": one-line plan", type(d.plan) == "string" and
			not d.plan:find("\n"))
	end
end

-- Site limits: never above max_nodes_per_job / max_time.
local limits = { a100 = { 8, 2880 }, h100 = { 16, 4320 },
	l40s = { 4, 1440 } }
for _, m in ipairs({ "llama-3-8b", "llama-3-70b", "qwen2.5-32b" }) do
	for part, lim in pairs(limits) do
		-- a batch job sbatch marked as a chain's first (chain.h)
		d = autosize.plan(env(P .. "model=" .. m,
			P .. "train_tokens=1e13",
			"AUTOSIZE_CHAIN=0123456789abcdef:1:0:480"),
			{ partition = part, batch = true })
		if d and d.action == "rewrite" then
			check(m .. " on " .. part .. " within limits",
				d.min_nodes <= lim[1] and d.time_limit <= lim[2],
				d.min_nodes .. " nodes, " .. d.time_limit .. " min")
			check(m .. " on " .. part .. " chained jobs reported",
				d.chained_jobs > 1 and d.plan:find("per job x " ..
				d.chained_jobs .. " chained jobs"), d.plan)
		else
			check(m .. " on " .. part .. " unfit is a reject",
				d and d.action == "reject" and d.reason == "unfit")
		end
	end
end

-- AUTOSIZE_MODEL: the architecture read on the submit host.
local LLAMA3_8B = "mlp=swiglu;layers=32;hidden=4096;heads=32;kv_heads=8;" ..
	"ffn=14336;vocab=128256;experts=0;experts_active=0;tied=0;" ..
	"name=llama-3-8b"
d = autosize.plan(env(P .. "model=/home/u/llama/config.json",
	"AUTOSIZE_MODEL=" .. LLAMA3_8B, P .. "train_tokens=1e11"),
	{ partition = "a100" })
local want = cli_plan(good, "--partition a100 --model llama-3-8b " ..
	"--train-tokens 1e11")
check("AUTOSIZE_MODEL decoded as the preset", d and
	d.action == "rewrite" and d.min_nodes == want.nodes and
	d.time_limit == want.time_limit, d and d.message)
d = autosize.plan(env(P .. "model=x.json", "AUTOSIZE_MODEL=layers=abc"),
	{ partition = "a100" })
check("bad AUTOSIZE_MODEL rejected", d and d.action == "reject" and
	d.reason == "input" and d.message:find("AUTOSIZE_MODEL"),
	d and d.message)
d = autosize.plan(env(P .. "model=x.json",
	"AUTOSIZE_MODEL=layers=4;hidden=4097;heads=32"), { partition = "a100" })
check("inconsistent AUTOSIZE_MODEL rejected", d and d.action == "reject",
	d and d.message)
d = autosize.plan(env(P .. "model=/home/u/config.json"), {})
check("config.json path without AUTOSIZE_MODEL rejected", d and
	d.action == "reject" and d.message:find("config.json"), d and d.message)

-- Bad values: reject with one line, never a rewrite.
local bad = {
	{ "model_params=abc", "--model-params" },
	{ "model_params=-5", "--model-params" },
	{ "model_params=nan", "--model-params" },
	{ "train_tokens=1e99", "--train-tokens" },
	{ "model=no-such-model", "no-such-model" },
	{ "bogus=1", "bogus" },
	{ "autosize=sometimes", "--autosize" },
	{ "train_time=yesterday", "--train-time" },
	{ "model_params=" .. string.rep("9", 5000), "longer" },
}
for _, b in ipairs(bad) do
	local e = env(P .. b[1])
	if not b[1]:find("^model") then
		e[1] = P .. "model_params=7e9"
	end
	d, err = autosize.plan(e, { partition = "h100" })
	check("reject " .. b[1]:sub(1, 40), d and d.action == "reject" and
		d.reason == "input" and d.message:find(b[2], 1, true) and
		not d.message:find("\n") and d.min_nodes == nil,
		err or (d and d.message))
end
d = autosize.plan(env(P .. "model_params=7e9"), { partition = "cpu" })
check("partition outside the policy left as submitted, said",
	d and d.action == "none" and d.message:find("a100, h100, l40s") and
	d.min_nodes == nil, d and d.message)

-- Too big: reject naming what fits, or that nothing does.
d = autosize.plan(env(P .. "model=llama-3.1-405b", P .. "train_tokens=1e12"),
	{ partition = "a100" })
check("405b on a100 rejected", d and d.action == "reject" and
	d.reason == "unfit", d and d.message)
check("405b message: nodes needed, limit, what fits", d and
	d.message:find("llama%-3%.1%-405b needs at least %d+ nodes of A100") and
	d.message:find("allows 8") and
	(d.message:find("no partition") or
	 d.message:find("partition %w+ fits it with %d+ nodes")),
	d and d.message)
d = autosize.plan(env(P .. "model=llama-3-70b", P .. "train_tokens=1e12"),
	{ partition = "l40s" })
check("70b on l40s rejected, names a partition that fits", d and
	d.action == "reject" and
	d.message:find("needs at least %d+ nodes of L40S") and
	d.message:find("partition %w+ fits it with %d+ nodes"), d and d.message)
d = autosize.plan(env(P .. "model=llama-3-70b", P .. "train_tokens=1e12"),
	{ partition = "l40s,h100" })
check("comma list picks the partition that fits", d and
	d.action == "rewrite" and d.partition == "h100" and d.set.partition,
	d and d.message)
d = autosize.plan(env(P .. "model=llama-3-8b", P .. "train_tokens=1e11"), {})
check("no partition: one of the policy's, written", d and
	d.action == "rewrite" and limits[d.partition] ~= nil and
	d.set.partition, d and d.message)

-- Explicit sizes, policy keep (the example policy); 200B tokens: 2T on
-- 4 nodes is past max_train_time.
d = autosize.plan(env(P .. "model=llama-3-70b", P .. "train_tokens=2e11"),
	{ partition = "h100", min_nodes = 4, max_nodes = 4,
	  time_limit = autosize.NO_VAL })
want = cli_plan(good, "--partition h100 --model llama-3-70b " ..
	"--train-tokens 2e11 --nodes 4")
check("keep: -N 4 kept, time planned for 4 nodes", d and
	d.action == "rewrite" and not d.set.nodes and d.explicit.nodes and
	d.min_nodes == 4 and d.set.time and d.time_limit == want.time_limit,
	d and d.message)
d = autosize.plan(env(P .. "model=llama-3-70b", P .. "train_tokens=2e11"),
	{ partition = "h100", min_nodes = 4, tres_per_node = "gres:gpu:8",
	  time_limit = 600 })
check("keep: everything given, nothing written", d and
	d.action == "none" and d.message:find("keeping") and
	not d.set.nodes and not d.set.gpus and not d.set.time and
	#d.warnings > 0, d and d.message)
d = autosize.plan(env(P .. "model=llama-3-70b", P .. "train_tokens=1e12"),
	{ partition = "h100", min_nodes = 1 })
check("keep: explicit size too small rejected with what fits", d and
	d.action == "reject" and d.reason == "unfit" and
	d.message:find("size you asked for") and
	d.message:find("at least %d+ nodes"), d and d.message)
d = autosize.plan(env(P .. "model=llama-3-8b", P .. "train_tokens=1e10"),
	{ partition = "h100", tres_per_node = "gres:gpu:h100:4" })
check("keep: typed gres GPU count kept", d and d.action == "rewrite" and
	d.gpus_per_node == 4 and not d.set.gpus and d.set.nodes,
	d and d.message)
d = autosize.plan(env(P .. "model=llama-3-70b", P .. "train_tokens=2e11"),
	{ partition = "h100", tres_per_job = "gres:gpu:32" })
want = cli_plan(good, "--partition h100 --model llama-3-70b " ..
	"--train-tokens 2e11 --gpus 32")
check("keep: --gpus 32 kept as 4 nodes x 8", d and
	d.action == "rewrite" and d.min_nodes == want.nodes and
	d.time_limit == want.time_limit and not d.set.gpus, d and d.message)
d = autosize.plan(env(P .. "model=llama-3-8b", P .. "train_tokens=1e10"),
	{ partition = "h100", min_nodes = autosize.NO_VAL,
	  time_limit = autosize.INFINITE })
check("sentinels: NO_VAL nodes unset, INFINITE time given", d and
	not d.explicit.nodes and d.explicit.time and d.set.nodes and
	not d.set.time, d and d.message)
d = autosize.plan(env(P .. "model=llama-3-8b", P .. "train_tokens=1e10"),
	{ partition = "h100", min_nodes = 0 / 0, max_nodes = -1,
	  time_limit = 1e300, tres_per_node = "gres:gpu:zzz:x9" })
check("junk numbers are unset, unreadable GPU spec: not sized, said", d and
	d.action == "none" and not d.explicit.nodes and not d.set.nodes and
	not d.set.gpus and not d.set.time and d.min_nodes == nil and
	d.message:find("cannot be read"), d and d.message)

-- A tres list too long to read (over 1024 bytes) is an unreadable GPU
-- request: not one GPU of a type named "unreadable" (planned at 1 GPU per
-- node, its nodes multiplied while the job keeps its own GPUs).
local long_tres = "gres:gpu:8" .. (",gres:shard:1"):rep(90)
d = autosize.plan(env(P .. "model=llama-3-70b", P .. "train_tokens=2e11"),
	{ partition = "h100", tres_per_node = long_tres })
check("keep: an over-long tres is unreadable, not 1 GPU per node", d and
	d.action == "none" and d.min_nodes == nil and
	d.message:find("cannot be read"), d and d.message)

-- slurmctld's part_list holds every partition the user may use, on a
-- large site far more than the policy's 32 at most: the policy's own are
-- never crowded out by the others (taken in pairs() order, they were).
do
	local parts, only = {}, {}
	for _, name in ipairs(autosize.policy_info().partitions) do
		parts[name] = { max_nodes = 64, total_nodes = 64,
			max_time = 2880 }
		only[name] = parts[name]
	end
	for i = 1, 1000 do
		parts["other" .. i] = { max_nodes = 1, total_nodes = 1,
			max_time = 60 }
	end
	local e = env(P .. "model=llama-3-70b", P .. "train_tokens=2e11")
	local want_d = autosize.plan(e, {}, only)
	d = autosize.plan(e, {}, parts)
	check("part_list of 1000 other partitions: the policy's still planned",
		d and want_d and want_d.action == "rewrite" and
		d.action == "rewrite" and d.partition == want_d.partition and
		d.min_nodes == want_d.min_nodes, d and d.message)
end

-- Explicit sizes, policy rewrite.
local rw = policy_with(TMP .. "/rewrite.yaml", { explicit_size = "rewrite" })
check("load explicit_size rewrite", autosize.load_policy(rw) == true)
d = autosize.plan(env(P .. "model=llama-3-70b", P .. "train_tokens=2e11"),
	{ partition = "h100", tres_per_node = long_tres })
check("rewrite: an over-long tres is never replaced by a made-up GPU type",
	d and (d.tres_per_node == nil or
	       not d.tres_per_node:find("unreadable")),
	d and d.tres_per_node)
d = autosize.plan(env(P .. "model=llama-3-70b", P .. "train_tokens=1e12"),
	{ partition = "h100", min_nodes = 1, tres_per_node = "gres:gpu:2",
	  time_limit = 60 })
want = cli_plan(rw, "--partition h100 --model llama-3-70b " ..
	"--train-tokens 2e12")
check("rewrite: explicit size replaced by the plan", d and
	d.action == "rewrite" and d.set.nodes and d.set.gpus and d.set.time and
	d.explicit.nodes and d.explicit.gpus and d.explicit.time and
	d.min_nodes == want.nodes and d.time_limit == want.time_limit,
	d and d.message)

-- Modes.
check("load example policy again", autosize.load_policy(good) == true)
local function mode_of(job_mode, pol)
	if pol then autosize.load_policy(pol) end
	local e = env(P .. "model=llama-3-8b", P .. "train_tokens=1e10")
	if job_mode then e[2] = P .. "autosize=" .. job_mode end
	local x = autosize.plan(e, { partition = "h100" })
	return x and x.action, x and x.message
end
local a, msg = mode_of("warn")
check("--autosize=warn: warn with a suggestion", a == "warn" and
	msg:find("suggested size: %-p h100 %-N %d+ %-%-gpus%-per%-node=%d+ %-t "),
	msg)
a, msg = mode_of("off")
check("--autosize=off: none, silent", a == "none" and msg == nil, msg)
a = mode_of("explain")
check("--autosize=explain: explain (a warn)", a == "explain")
a = mode_of("rewrite")
check("--autosize=rewrite", a == "rewrite")
a = mode_of(nil, policy_with(TMP .. "/warn.yaml", { mode = "warn" }))
check("policy mode warn", a == "warn")
a = mode_of("rewrite")
check("job --autosize=rewrite overrides policy warn", a == "rewrite")
a, msg = mode_of("rewrite", policy_with(TMP .. "/off.yaml", { mode = "off" }))
check("policy mode off wins over --autosize", a == "none" and msg == nil)
autosize.load_policy(policy_with(TMP .. "/unfit.yaml",
	{ on_unfit = "warn" }))
d = autosize.plan(env(P .. "model=llama-3.1-405b"), { partition = "a100" })
check("on_unfit warn: warn, nothing to write", d and d.action == "warn" and
	d.reason == "unfit" and d.min_nodes == nil, d and d.message)
autosize.load_policy(good)

-- Junk arguments: nil, errmsg; never a crash.
local junk_env = env(P .. "model_params=7e9")
for i, j in ipairs({ 5, "x", true, function() end, coroutine.create(
	function() end) }) do
	d, err = autosize.plan(j, {})
	check("plan(junk env " .. i .. ")", d == nil and type(err) == "string",
		err)
	d, err = autosize.plan(junk_env, j)
	check("plan(env, junk job " .. i .. ")", d == nil and
		type(err) == "string", err)
end
d, err = autosize.plan()
check("plan() is nil", d == nil)
d, err = autosize.plan(junk_env)
check("plan(env) without job", d and d.action, err)
d = autosize.plan({ [0] = 1, [1] = {}, [2] = true,
	[3] = P .. "model_params=7e9", x = "y", [-1] = P .. "bogus=1" },
	{ partition = {}, min_nodes = "4", tres_per_node = 8,
	  time_limit = {} })
check("non-string entries and fields skipped", d and d.action == "rewrite",
	d and d.message)
d = autosize.plan({ P .. "model_params=7e9" }, {})
check("1-based env accepted", d and d.action == "rewrite")
d, err = autosize.plan(junk_env, { partition = string.rep("p", 300) })
check("over-long partition: nil, errmsg", d == nil and err, err)
d, err = autosize.plan(junk_env, setmetatable({}, { __index = function()
	error("boom") end }))
check("raising job table: nil, errmsg", d == nil and err and
	err:find("boom"), err)
local big = {}
for i = 0, 5000 do big[i] = "X" .. i .. "=y" end
big[4200] = P .. "model_params=7e9"
check("entries past 4096 not looked at", autosize.plan(big, {}) == nil)
big[100] = P .. "model_params=7e9"
check("entry within 4096 found", autosize.plan(big, {}) ~= nil)
d = autosize.plan(env(P .. "model_params=7e9", string.rep("A", 1e6)), {})
check("1 MB junk entry", d and d.action == "rewrite")
for i = 1, 200 do
	autosize.plan(env(P .. "model_params=" .. i .. "e9",
		P .. "train_tokens=1e9"), { partition = "h100" })
end
check("200 plans in a row", true)

-- Metrics for node exporter's textfile collector: counters and the
-- decision-time histogram, the file replaced whole on a decision, at
-- most every metrics_every seconds; a relative path refused.
do
	local dir = os.tmpname()
	os.remove(dir)
	local path = dir .. ".prom"
	local ok, merr = autosize.metrics_file("metrics.prom")
	check("metrics_file: a relative path is refused", ok == nil and
		merr and merr:find("absolute path"), merr)
	ok = autosize.metrics_file(path, 1)
	check("metrics_file: an absolute path", ok == true)
	local function read_metrics()
		local mf = io.open(path, "r")
		local t = mf and mf:read("*a") or ""
		if mf then mf:close() end
		local sum = 0
		for n in t:gmatch('autosize_decisions_total{action="[a-z]+"} (%d+)') do
			sum = sum + tonumber(n)
		end
		return t, sum, tonumber(t:match(
			'autosize_decision_seconds_count (%d+)')),
			tonumber(t:match('autosize_refusals_total{reason="input"} (%d+)'))
	end
	autosize.plan(env(P .. "model_params=7e9", P .. "train_tokens=1e9"),
		{ partition = "h100" })
	local text, sum, count, input = read_metrics()
	check("metrics: written on the first decision after metrics_file, " ..
		"every decision in the histogram", sum > 0 and count == sum and
		text:find("# TYPE autosize_decision_seconds histogram", 1, true)
		and text:find('le="+Inf"} ' .. count, 1, true), text)
	-- a refusal, counted and written within the next second
	local t0, input2 = os.time(), input
	repeat
		autosize.plan(env(P .. "model_params=bogus"), {})
		text, sum, count, input2 = read_metrics()
	until input2 > input or os.time() - t0 > 3
	check("metrics: refusals by reason, between writes at most 1 s",
		input2 > input and count == sum, text)
	check("metrics: no temporary file left",
		os.execute("ls " .. path .. ".tmp.* >/dev/null 2>&1") ~= 0)
	autosize.metrics_file(nil)
	os.remove(path)
end

-- ------------------------------------------------------- job_submit.lua
local fake = { user = {}, error = {}, info = {} }
slurm = {
	SUCCESS = 0, ERROR = -1, FAILURE = -1,
	ESLURM_INVALID_NODE_COUNT = 2006, ESLURM_ACCESS_DENIED = 2002,
	NO_VAL = 4294967294, INFINITE = 4294967295,
	-- As Slurm defines them: string.format(...).
	log_user = function(...)
		fake.user[#fake.user + 1] = string.format(...)
	end,
	log_error = function(...)
		fake.error[#fake.error + 1] = string.format(...)
	end,
	log_info = function(...)
		fake.info[#fake.info + 1] = string.format(...)
	end,
}

-- A job_desc like Slurm's: reads through __index, writes recorded.
local function job_desc(fields)
	local data, writes, envw = {}, {}, {}
	for k, v in pairs(fields) do data[k] = v end
	data.min_nodes = data.min_nodes or slurm.NO_VAL
	data.max_nodes = data.max_nodes or slurm.NO_VAL
	data.time_limit = data.time_limit or slurm.NO_VAL
	local jd = setmetatable({}, {
		__index = function(_, k)
			if k == "environment" then
				return setmetatable({}, { __newindex =
					function(_, name, value)
						if data.script then
							envw[name] = value
						end
					end })
			end
			if k == "spank_job_env" and data.spank_job_env then
				local copy = {}
				for i, v in pairs(data.spank_job_env) do
					copy[i] = v
				end
				return copy
			end
			return data[k]
		end,
		__newindex = function(_, k, v)
			writes[k] = v
			data[k] = v
		end,
	})
	return jd, writes, envw
end

local function count(t)
	local n = 0
	for _ in pairs(t) do n = n + 1 end
	return n
end

local function reset()
	fake.user, fake.error = {}, {}
end

local function user_text()
	return table.concat(fake.user, "\n")
end

AUTOSIZE_SETTINGS = { cpath = BUILD .. "/?.so", policy = good,
	limits_cli = "" }
local loaded, lerr = pcall(dofile, "etc/job_submit.lua")
check("job_submit.lua loads", loaded, lerr)
check("defines slurm_job_submit/modify and autosize_job_submit",
	type(slurm_job_submit) == "function" and
	type(slurm_job_modify) == "function" and
	type(autosize_job_submit) == "function")

-- Not an autosize job: untouched, silent.
reset()
local jd, writes = job_desc({ partition = "h100", script = "#!/bin/sh" })
check("no spank env: SUCCESS", slurm_job_submit(jd, {}, 1000) ==
	slurm.SUCCESS)
check("no spank env: nothing written, nothing said",
	count(writes) == 0 and #fake.user == 0 and #fake.error == 0)
jd, writes = job_desc({ partition = "h100", script = "x",
	spank_job_env = env("FOO=bar", "_SLURM_SPANK_OPTION_other_x=1") })
check("other env: SUCCESS, nothing written",
	slurm_job_submit(jd, {}, 1000) == slurm.SUCCESS and
	count(writes) == 0 and #fake.user == 0)

-- Rewrite a batch job.
reset()
local envw
jd, writes, envw = job_desc({ partition = "h100", script = "#!/bin/sh",
	spank_job_env = env(P .. "model_params=70e9",
		P .. "train_tokens=1e12") })
want = cli_plan(good, "--partition h100 --model-params 70e9 " ..
	"--train-tokens 2e12")
check("rewrite: SUCCESS", slurm_job_submit(jd, {}, 1000) == slurm.SUCCESS)
check("rewrite: nodes, GPUs, time written as the CLI plans",
	writes.min_nodes == want.nodes and writes.max_nodes == want.nodes and
	writes.tres_per_node == TRES_GPU .. ":" .. want.gpus_per_node and
	writes.time_limit == want.time_limit, user_text())
check("rewrite: partition not written", writes.partition == nil)
check("rewrite: SLURM_GPUS_PER_NODE for the batch script",
	envw.SLURM_GPUS_PER_NODE == tostring(want.gpus_per_node))
check("rewrite: old -> new told to the user",
	user_text():find("nodes %(not set%) %-> " .. want.nodes) and
	user_text():find("time limit %(not set%) %-> 3%-00:00:00"),
	user_text())
check("rewrite: '%' in messages survives log_user's format",
	user_text():find("MFU %d+%%") and #fake.error == 0,
	table.concat(fake.error, "\n"))

-- The plan travels with the job: its record in the AdminComment, after
-- what the site wrote there (issue 10).
check("rewrite: the plan record in admin_comment",
	type(writes.admin_comment) == "string" and
	writes.admin_comment:find("^autosize:v1:") and
	writes.admin_comment:find(",part=h100,", 1, true) and
	writes.admin_comment:find(",nodes=" .. want.nodes .. ",", 1, true) and
	not writes.admin_comment:find("[ |]"), writes.admin_comment)
reset()
jd, writes = job_desc({ partition = "h100", script = "#!/bin/sh",
	admin_comment = "site: project 42",
	spank_job_env = env(P .. "model_params=70e9",
		P .. "train_tokens=1e12") })
slurm_job_submit(jd, {}, 1000)
check("a site's AdminComment is kept, the record appended",
	type(writes.admin_comment) == "string" and
	writes.admin_comment:find("^site: project 42 autosize:v1:"),
	writes.admin_comment)
check("attach_record replaces an older record, never doubles it",
	autosize.attach_record("x autosize:v1:a=1", "autosize:v1:b=2") ==
	"x autosize:v1:b=2")
check("attach_record refuses what is not a record",
	autosize.attach_record("x", "rm -rf /") == nil)

-- Interactive job (no script): no environment write.
reset()
jd, writes, envw = job_desc({ partition = "a100",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=1e11") })
slurm_job_submit(jd, {}, 1000)
check("salloc job: sized, no environment write",
	writes.min_nodes ~= nil and count(envw) == 0)

-- No partition: the chosen one is written.
reset()
jd, writes = job_desc({ script = "x",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=1e11") })
slurm_job_submit(jd, {}, 1000)
check("no partition: partition written and told",
	limits[writes.partition] ~= nil and
	user_text():find("partition %(default%) %-> "), user_text())

-- Bad input: rejected with Slurm's generic error and our line.
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	spank_job_env = env(P .. "model_params=lots") })
local rc = slurm_job_submit(jd, {}, 1000)
check("bad input rejected", rc == slurm.ERROR and count(writes) == 0 and
	user_text():find("^autosize: %-%-model%-params"), user_text())

-- Unfit: rejected with a node-count error.
reset()
jd, writes = job_desc({ partition = "a100", script = "x",
	spank_job_env = env(P .. "model=llama-3.1-405b") })
rc = slurm_job_submit(jd, {}, 1000)
check("unfit rejected with ESLURM_INVALID_NODE_COUNT",
	rc == slurm.ESLURM_INVALID_NODE_COUNT and count(writes) == 0 and
	user_text():find("needs at least"), user_text())

-- Refusals never reach accounting: one stable line each in slurmctld's
-- log, which `autosize report --ctld-log` counts.
fake.info = {}
reset()
jd = job_desc({ partition = "h100", script = "x",
	spank_job_env = env(P .. "model_params=lots") })
slurm_job_submit(jd, {}, 1000)
jd = job_desc({ partition = "a100", script = "x",
	spank_job_env = env(P .. "model=llama-3.1-405b") })
slurm_job_submit(jd, {}, 1001)
local refused = table.concat(fake.info, "\n")
check("refusal lines: reason, the option named, uid",
	#fake.info == 2 and fake.info[1]:find("^autosize: refused: " ..
	"reason=input what=%-%-model%-params uid=1000: %-%-model%-params") and
	fake.info[2]:find("^autosize: refused: reason=unfit what=%- " ..
	"uid=1001: ") and not refused:find("[\r]"), refused)
-- A logger that raises does not let the refused job through.
local saved_info = slurm.log_info
slurm.log_info = function() error("log broken") end
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	spank_job_env = env(P .. "model_params=lots") })
rc = slurm_job_submit(jd, {}, 1000)
slurm.log_info = saved_info
check("refusal line failing: still refused", rc == slurm.ERROR and
	count(writes) == 0, tostring(rc))

-- Warn: only told.
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "autosize=warn") })
rc = slurm_job_submit(jd, {}, 1000)
check("warn: nothing written, suggestion told", rc == slurm.SUCCESS and
	count(writes) == 0 and user_text():find("suggested size"), user_text())

-- Explicit size kept: only what the user left open is written.
reset()
jd, writes = job_desc({ partition = "h100", script = "x", min_nodes = 4,
	max_nodes = 4, tres_per_node = "gres:gpu:8",
	spank_job_env = env(P .. "model=llama-3-70b", P .. "train_tokens=2e11") })
rc = slurm_job_submit(jd, {}, 1000)
check("keep: only the time written", rc == slurm.SUCCESS and
	writes.time_limit ~= nil and writes.min_nodes == nil and
	writes.tres_per_node == nil, user_text())

-- Task counts: srun's own -n / --ntasks-per-node below a new node count
-- would crash slurmctld 22.05 at step creation: not resized, told why.
reset()
jd, writes = job_desc({ partition = "h100", num_tasks = 1,
	ntasks_per_node = 1,
	spank_job_env = env(P .. "model=llama-3-70b", P .. "train_tokens=1e12") })
rc = slurm_job_submit(jd, {}, 1000)
check("interactive job with fewer tasks than nodes: untouched, told",
	rc == slurm.SUCCESS and count(writes) == 0 and
	user_text():find("not resized") and user_text():find("%-N %d+"),
	user_text())
reset()
jd, writes = job_desc({ partition = "h100", num_tasks = 64,
	spank_job_env = env(P .. "model=llama-3-70b", P .. "train_tokens=1e12") })
slurm_job_submit(jd, {}, 1000)
check("interactive job with enough tasks: resized", writes.min_nodes ~= nil and
	writes.num_tasks == nil, user_text())
reset()
jd, writes = job_desc({ partition = "h100", script = "x", num_tasks = 1,
	spank_job_env = env(P .. "model=llama-3-70b", P .. "train_tokens=1e12") })
slurm_job_submit(jd, {}, 1000)
check("batch -n 1: one task per new node", writes.min_nodes and
	writes.num_tasks == writes.min_nodes, user_text())
reset()
jd, writes = job_desc({ partition = "h100", script = "x", num_tasks = 2,
	ntasks_per_node = 2,
	spank_job_env = env(P .. "model=llama-3-70b", P .. "train_tokens=1e12") })
slurm_job_submit(jd, {}, 1000)
check("batch --ntasks-per-node=2: tasks follow the nodes",
	writes.min_nodes and writes.num_tasks == 2 * writes.min_nodes and
	user_text():find("tasks 2 %-> "), user_text())
reset()
jd, writes, envw = job_desc({ partition = "h100", script = "x",
	num_tasks = 2, ntasks_per_node = 2,
	spank_job_env = env(P .. "model=llama-3-70b", P .. "train_tokens=1e12") })
slurm_job_submit(jd, {}, 1000)
check("batch task count also rewritten in the job's environment",
	writes.num_tasks and envw.SLURM_NTASKS == tostring(writes.num_tasks)
	and envw.SLURM_NPROCS == tostring(writes.num_tasks), user_text())

-- --autosize=explain that reaches slurmctld (plugin optional or missing
-- on the client): plan shown, nothing submitted.
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=1e11",
		P .. "autosize=explain") })
rc = slurm_job_submit(jd, {}, 1000)
check("explain at slurmctld: refused, plan shown, nothing written",
	rc ~= slurm.SUCCESS and count(writes) == 0 and
	user_text():find("plan: ") and user_text():find("nothing submitted"),
	user_text())

-- explain re-run by the plugin with --test-only: sized as it would be
-- queued (Slurm queues nothing), told once, SUCCESS.
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=1e11",
		P .. "autosize=explain", "AUTOSIZE_EXPLAIN=test-only") })
rc = slurm_job_submit(jd, {}, 1000)
check("explain --test-only: SUCCESS, sized, plan told once",
	rc == slurm.SUCCESS and writes.min_nodes and
	select(2, user_text():gsub("plan: ", "")) == 1 and
	user_text():find("nothing submitted%): slurmctld would queue"),
	user_text())
check("explain --test-only: recorded and logged as a rewrite (the "..
	"marker is the client's word)", writes.admin_comment and
	writes.admin_comment:find("autosize") ~= nil, tostring(writes.admin_comment))

-- Every path that changes a job meets the same guards, whatever the
-- client sends: srun's 1-task job against a multi-node plan, through
-- rewrite, explain with the test-only marker (a client can send it with
-- a real submission) and explain without it.
local guard_paths = {
	{ "rewrite", {} },
	{ "explain + test-only marker", { P .. "autosize=explain",
		"AUTOSIZE_EXPLAIN=test-only" } },
	{ "explain, no marker", { P .. "autosize=explain" } },
	{ "rewrite asked for", { P .. "autosize=rewrite" } },
}
for _, path in ipairs(guard_paths) do
	for _, shape in ipairs({
		{ "srun -n 1", { num_tasks = 1 } },
		{ "srun -n 1 --ntasks-per-node=1", { num_tasks = 1,
			ntasks_per_node = 1 } },
		{ "srun -n 2", { num_tasks = 2 } },
	}) do
		reset()
		local fields = { partition = "h100",
			spank_job_env = env(P .. "model=llama-3-70b",
				P .. "train_tokens=1e12", unpack(path[2])) }
		for k, v in pairs(shape[2]) do fields[k] = v end
		jd, writes = job_desc(fields)
		rc = slurm_job_submit(jd, {}, 1000)
		check("guard on every path: " .. path[1] .. ", " .. shape[1] ..
			": no node, task, GPU or time change, no record",
			writes.min_nodes == nil and writes.max_nodes == nil and
			writes.num_tasks == nil and writes.tres_per_node == nil and
			writes.time_limit == nil and writes.admin_comment == nil,
			user_text())
		check("guard on every path: " .. path[1] .. ", " .. shape[1] ..
			": told why (or refused)", rc ~= slurm.SUCCESS or
			user_text():find("not resized"), user_text())
	end
end


-- A job with an explicit size: the plan told is for that size, with the
-- time-limit warning (the submit side says nothing).
reset()
jd, writes = job_desc({ partition = "h100", script = "x", min_nodes = 4,
	tres_per_node = "gres:gpu:8", time_limit = 60,
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=1e11") })
rc = slurm_job_submit(jd, {}, 1000)
check("explicit size: plan for 4 nodes and the short limit warned",
	rc == slurm.SUCCESS and user_text():find(": 4 nodes x 8 GPUs") and
	user_text():find("your time limit %(%-t 01:00:00%) ends before"),
	user_text())

-- A chained run's follower (sbatch's mark: job 3 after job 77) waits for
-- the job before it, whatever --dependency the first job's command line
-- carried; the first job gets no dependency of autosize's.
reset()
jd, writes = job_desc({ partition = "a100", script = "x",
	dependency = "afterok:5",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=2e11",
		"AUTOSIZE_CHAIN=0123456789abcdef:3:77:480") })
rc = slurm_job_submit(jd, {}, 1000)
check("chain: a follower depends on the job before it",
	rc == slurm.SUCCESS and writes.dependency == "afterany:77" and
	user_text():find("job 3 of %d+'s dependency afterok:5 %-> " ..
		"afterany:77 %(replaces yours%)") and
	tostring(writes.admin_comment):find("chain=0123456789abcdef,ci=3,"),
	user_text())
reset()
jd, writes = job_desc({ partition = "a100", script = "x",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=2e11",
		"AUTOSIZE_CHAIN=0123456789abcdef:1:0:480") })
rc = slurm_job_submit(jd, {}, 1000)
check("chain: the first job has no dependency, its plan says the chain",
	rc == slurm.SUCCESS and writes.dependency == nil and
	user_text():find("chained jobs, which cover at least the upper end"),
	user_text())

-- The admins' line names the job by the name its user chose: one line
-- in slurmctld's log, whatever the name holds (no forged log lines).
fake.info = {}
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	name = "x\n[2026-01-01T00:00:00.000] error: forged\r",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=1e11") })
rc = slurm_job_submit(jd, {}, 1000)
check("admins' line: the job name cannot break slurmctld's log line",
	rc == slurm.SUCCESS and #fake.info == 1 and
	not fake.info[1]:find("[\r\n]") and fake.info[1]:find("forged"),
	fake.info[1])

-- Explicit --gpus replaced under explicit_size rewrite: tres_per_job
-- loses its GPU entry.
autosize.load_policy(rw)
AUTOSIZE_SETTINGS.policy = rw
slurm_job_submit, slurm_job_modify = nil, nil
dofile("etc/job_submit.lua")
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	tres_per_job = "gres:gpu:16,license:foo:1",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=1e11") })
rc = slurm_job_submit(jd, {}, 1000)
check("rewrite policy: --gpus replaced", rc == slurm.SUCCESS and
	writes.tres_per_job == "license:foo:1" and writes.tres_per_node and
	user_text():find("replaces yours"), user_text())

-- Issue 8: the GPU entry of tres_per_node is edited in place (its type
-- and the other gres stay), under explicit_size rewrite.
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	tres_per_node = "gres:gpu:h100:2,gres:shard:1",
	spank_job_env = env(P .. "model_params=70e9",
		P .. "train_tokens=1e12") })
rc = slurm_job_submit(jd, {}, 1000)
check("rewrite keeps the GPU type and other gres", rc == slurm.SUCCESS and
	writes.tres_per_node and
	writes.tres_per_node:find("^gres:gpu:h100:%d+,gres:shard:1$"),
	tostring(writes.tres_per_node) .. " " .. user_text())

-- Issue 12: Slurm's own limits (part_list) over the policy's: MaxTime
-- 60 minutes on h100 keeps the time limit within it, and the user is told.
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	spank_job_env = env(P .. "model=llama-3-8b", P .. "train_tokens=1e11") })
rc = slurm_job_submit(jd, { h100 = { max_nodes = 4294967295,
	total_nodes = 64, max_time = 60 } }, 1000)
check("part_list MaxTime: time limit within it, told", rc == slurm.SUCCESS and
	writes.time_limit and writes.time_limit <= 60 and
	user_text():find("Slurm's MaxTime is 1 h"), user_text())

-- Heterogeneous job: no component resized or refused for its size.
AUTOSIZE_SETTINGS = { cpath = BUILD .. "/?.so", policy = good,
	limits_cli = "" }
slurm_job_submit, slurm_job_modify = nil, nil
dofile("etc/job_submit.lua")
for offset = 0, 1 do
	reset()
	jd, writes = job_desc({ partition = "h100", script = "x",
		min_nodes = 1, het_job_offset = offset,
		spank_job_env = env(P .. "model_params=70e9",
			P .. "train_tokens=1e12") })
	rc = slurm_job_submit(jd, {}, 1000)
	check("het component " .. offset .. ": SUCCESS, nothing written",
		rc == slurm.SUCCESS and count(writes) == 0, user_text())
	check("het component " .. offset .. ": told once",
		(offset == 0) == (user_text():find("heterogeneous") ~= nil),
		user_text())
end

-- GPUs per task: kept, the job sized around them.
reset()
jd, writes = job_desc({ partition = "h100", script = "x", num_tasks = 24,
	tres_per_task = "gres:gpu:1",
	spank_job_env = env(P .. "model_params=70e9",
		P .. "train_tokens=2e11") })
rc = slurm_job_submit(jd, {}, 1000)
check("--gpus-per-task: no tres_per_node written", rc == slurm.SUCCESS and
	writes.tres_per_node == nil and writes.tres_per_task == nil,
	user_text())

-- Our own failure: logged, job passes (on_error pass).
reset()
jd = setmetatable({}, { __index = function(_, k)
	if k == "spank_job_env" then return env(P .. "model_params=7e9") end
	error("job_desc exploded")
end, __newindex = function() error("no writes") end })
rc = slurm_job_submit(jd, {}, 1000)
check("runtime error: SUCCESS, logged", rc == slurm.SUCCESS and
	table.concat(fake.error):find("exploded"), table.concat(fake.error))
-- scontrol update of a sized job: told when its plan no longer
-- describes it; a change that keeps it says nothing.
do
	reset()
	local jd2, w2 = job_desc({ partition = "h100", script = "x",
		spank_job_env = env(P .. "model=llama-3-8b",
			P .. "train_tokens=1e11") })
	slurm_job_submit(jd2, {}, 1000)
	local rec = { admin_comment = w2.admin_comment, job_id = 42 }
	-- Slurm 23.02 and later show log_user() of job_modify to the user;
	-- 22.05 drops it with an error: line, so there it is an info line
	-- of slurmctld's log naming the job (this module: built for one)
	local y, m = tostring(autosize.slurm.built_for or ""):match(
		"^(%d+)%.(%d+)")
	local to_user = y and tonumber(y) * 100 + tonumber(m) >= 2302
	local function told()
		if to_user then
			return user_text()
		end
		return table.concat(fake.info, "\n")
	end
	reset()
	fake.info = {}
	check("modify: a new partition makes the record stale, told",
		w2.admin_comment and slurm_job_modify({ partition = "other",
		min_nodes = slurm.NO_VAL, time_limit = slurm.NO_VAL }, rec, {},
		0) == slurm.SUCCESS and told():find("no longer describes") and
		told():find("partition other"), told())
	check("modify: told where this Slurm shows it, never as an error",
		#fake.error == 0 and (to_user or (#fake.user == 0 and
		told():find("autosize: job 42: this job was sized"))),
		told() .. " | " .. user_text())
	reset()
	fake.info = {}
	slurm_job_modify({ time_limit = (w2.time_limit or 60) * 4,
		min_nodes = slurm.NO_VAL }, rec, {}, 0)
	check("modify: a new time limit is told", told():find("time limit"),
		told())
	reset()
	fake.info = {}
	slurm_job_modify({ min_nodes = slurm.NO_VAL, time_limit = slurm.NO_VAL,
		comment = "x" }, rec, {}, 0)
	check("modify: a change that keeps the plan says nothing",
		#fake.user == 0 and #fake.info == 0, user_text())
end
check("slurm_job_modify passes", slurm_job_modify({}, {}, {}, 0) ==
	slurm.SUCCESS)

-- A site script that defines its own slurm_job_submit keeps it.
local function site_submit() return 42 end
slurm_job_submit = site_submit
dofile("etc/job_submit.lua")
check("site's slurm_job_submit not replaced", slurm_job_submit ==
	site_submit)

-- autosize_site.lua next to the script; a broken one is ignored.
local dir = TMP .. "/conf"
os.execute("mkdir -p " .. dir)
write(dir .. "/job_submit.lua", read("etc/job_submit.lua"))
write(dir .. "/autosize_site.lua", "return { policy = '" ..
	TMP .. "/warn.yaml', cpath = '" .. BUILD .. "/?.so', " ..
	"limits_cli = '' }\n")
AUTOSIZE_SETTINGS, slurm_job_submit, slurm_job_modify = nil, nil, nil
-- A planted autosize.lua on package.path (slurmctld's working folder,
-- /usr/local/share/lua) is never what gets loaded.
os.execute("mkdir -p " .. TMP .. "/planted")
write(TMP .. "/planted/autosize.lua", "PLANTED = true\n" ..
	"return { plan = function() return { action = 'none' } end }\n")
local saved_path = package.path
package.path = TMP .. "/planted/?.lua;" .. package.path
package.loaded.autosize = nil
dofile(dir .. "/job_submit.lua")
package.path = saved_path
reset()
jd, writes = job_desc({ partition = "h100", script = "x",
	spank_job_env = env(P .. "model=llama-3-8b") })
slurm_job_submit(jd, {}, 1000)
check("autosize_site.lua sets the policy (mode warn)",
	count(writes) == 0 and user_text():find("suggested"), user_text())
check("a planted autosize.lua on package.path is not loaded",
	rawget(_G, "PLANTED") == nil)
write(dir .. "/autosize_site.lua", "this is not lua")
-- Without a site file the defaults would run /usr/bin/autosize against
-- this host's Slurm (CI installs the package and runs one beside this
-- test): this test's own settings stand in for the ignored file.
AUTOSIZE_SETTINGS = { cpath = BUILD .. "/?.so", policy = TMP ..
	"/warn.yaml", limits_cli = "" }
slurm_job_submit, slurm_job_modify = nil, nil
reset()
loaded, lerr = pcall(dofile, dir .. "/job_submit.lua")
check("broken autosize_site.lua: script still loads, error logged",
	loaded and type(slurm_job_submit) == "function" and
	table.concat(fake.error):find("autosize_site.lua"), lerr)

-- The calibration file (issue 10): reloaded when it changes, like the
-- policy; a broken one keeps the last good policy and calibration.
local calp = TMP .. "/calpol.yaml"
write(calp, POLICY_TEXT .. "\ncalibration: cal.yaml\n")
local function plan_h100()
	local t = {}
	t[0] = P .. "model_params=7e9"
	t[1] = P .. "train_tokens=2e9"
	return autosize.plan(t, { partition = "h100",
		min_nodes = autosize.NO_VAL, max_nodes = autosize.NO_VAL,
		time_limit = autosize.NO_VAL })
end
r, err = autosize.load_policy(calp)
check("a policy whose calibration is not written yet loads", r == true, err)
local plain = plan_h100()
local cal_gpu = cli_plan(calp, "--partition h100 --model-params 7e9 " ..
	"--train-tokens 2e9").raw:match('"gpu":"([^"]*)"')
write(TMP .. "/cal.yaml", "version: 1\ncorrections:\n  - {partition: " ..
	"h100, gpu: \"" .. tostring(cal_gpu) .. "\", jobs: 20, users: 4, " ..
	"speed_factor: 0.5, speed_low: 0.45, speed_high: 0.55}\n")
r, err = autosize.load_policy(calp)
local slow = plan_h100()
check("a new calibration file is picked up without a policy change",
	r == true and slow and slow.plan and
	slow.plan:find("speed x 0.50", 1, true) and
	plain and slow.time_limit > plain.time_limit,
	tostring(err) .. " " .. tostring(slow and slow.plan) .. " " ..
	tostring(slow and slow.action) .. " " ..
	tostring(slow and (slow.message or slow.error)))
write(TMP .. "/cal.yaml", "version: 1\ncorrections: [{partition: h100}]\n")
r, err = autosize.load_policy(calp)
check("a broken calibration is reported once",
	r == nil and tostring(err):find("calibration"), err)
local still = plan_h100()
check("the last good calibration stays in use",
	still and still.plan:find("speed x 0.50", 1, true),
	still and still.plan)

-- The admins' line is rate limited: a --test-only loop of one user must
-- not write a line per request into slurmctld's log.
-- The files a policy names are part of its version: an edited
-- `catalog:` (or `perf:`) reloads the policy as `autosize plan` reads it.
local catp = TMP .. "/catpol.yaml"
local gpus_text = read("etc/gpus.yaml")
write(TMP .. "/gpus.yaml", gpus_text)
write(catp, POLICY_TEXT .. "\ncatalog: gpus.yaml\n")
r, err = autosize.load_policy(catp)
local before = plan_h100()
check("a policy with its own catalog loads", r == true and before, err)
write(TMP .. "/gpus.yaml", (gpus_text:gsub("bf16_tflops: 989.4",
	"bf16_tflops: 494.7")))
r, err = autosize.load_policy(catp)
local after = plan_h100()
check("an edited catalog reloads the policy (H100 at half speed: " ..
	"a longer limit)", r == true and after and before and
	after.time_limit > before.time_limit,
	tostring(err) .. " " .. tostring(after and after.plan))

-- A policy caught while it is being written: a prefix of the file is
-- often valid YAML (fewer partitions). While the file is younger than
-- the settle time, the last good policy serves; once it is old enough
-- it loads.
write(catp, POLICY_TEXT)
r = autosize.load_policy(catp)
local whole = plan_h100()
local cut = POLICY_TEXT:sub(1, (POLICY_TEXT:find("\n  %- name: h100")))
write_now(catp, cut)
r, err = autosize.load_policy(catp)
local during = plan_h100()
check("a policy file written a moment ago is not loaded yet",
	r == true and whole and during and during.action == whole.action and
	during.partition == whole.partition,
	tostring(err) .. " " .. tostring(during and during.message))
r, err = autosize.load_policy(catp, 0)
local settled = plan_h100()
check("the same file, settled, is the policy (h100 gone)",
	settled and settled.action == "none" and
	settled.message:find("not sized by autosize"),
	tostring(settled and settled.message))
write(catp, POLICY_TEXT)
autosize.load_policy(catp)

-- A policy (or a file it names) dated in the future, by a file server's
-- clock ahead of this host's or a touch: it has no age to wait for. It
-- loads once it stayed the same for the settle time by this host's own
-- clock, and that load says by how much it is ahead, once.
write_now(catp, cut)
assert(os.execute(string.format("touch -d @%d '%s'", os.time() + 86400,
	catp)) == 0)
r, err = autosize.load_policy(catp, 1)
local waiting = plan_h100()
check("a policy dated a day ahead is not loaded at once",
	r == true and err == nil and waiting and
	waiting.partition == whole.partition, tostring(err))
os.execute("sleep 1.2")
r, err = autosize.load_policy(catp, 1)
local ahead = plan_h100()
check("...it loads once it stayed the same for the settle time, " ..
	"saying by how much it is ahead",
	r == true and tostring(err):find(catp, 1, true) and
	tostring(err):find("dated 86[34]%d%d s ahead of this host's clock") and
	ahead and ahead.action == "none", tostring(err))
r, err = autosize.load_policy(catp, 1)
check("...once", r == true and err == nil, tostring(err))
write(catp, POLICY_TEXT)
autosize.load_policy(catp)

-- Slurm's QOS and association limits, read by a helper (a script here,
-- standing in for `autosize limits --raw`) and never waited for: jobs
-- are planned within their caps; a QOS the snapshot lacks, or no
-- snapshot yet, leaves the job as submitted with one line.
autosize.load_policy(good)
local me = sh("id -un"):gsub("%s+$", "")
local my_uid = tonumber(sh("id -u"))
local helper = TMP .. "/limits-helper"
write_now(helper, "#!/bin/sh\ncat <<'EOF'\nautosize-limits 1\n" ..
	"enforce limits\nqos normal user_gpus=4\nqos tiny job_gpus=1\n" ..
	"assoc 1 0 root - -\nassoc 2 1 root " .. me .. " - def_qos=normal " ..
	"qos=normal,tiny\nuser " .. me .. " default_account=root\nend\nEOF\n")
os.execute("chmod 755 " .. helper)
local function plan_capped(qos, params)
	return autosize.plan(env(P .. "model_params=" .. (params or "7e9"),
		P .. "train_tokens=5e10"), { partition = "h100", uid = my_uid,
		qos = qos, min_nodes = autosize.NO_VAL,
		max_nodes = autosize.NO_VAL, time_limit = autosize.NO_VAL },
		{ h100 = { max_nodes = 4, total_nodes = 4, max_time = 4320 } })
end
r, err = autosize.read_limits(helper)
check("read_limits starts the helper without waiting", r == true, err)
d = plan_capped()
check("no snapshot yet: the job goes as submitted, said",
	d and d.action == "none" and
	tostring(d.message):find("not sized: Slurm's QOS and association " ..
		"limits cannot be read %(still being read"),
	tostring(d and d.message))
for _ = 1, 100 do
	autosize.read_limits(helper)
	d = plan_capped()
	if d and d.action ~= "none" then break end
	os.execute("sleep 0.05")
end
local capped_told = false
for _, w in ipairs(d and d.warnings or {}) do
	capped_told = capped_told or
		w:find("QOS normal MaxTRESPerUser=gres/gpu=4: planned within 4",
			1, true)
end
check("the snapshot read: planned within the per-user cap, told",
	d and d.action == "rewrite" and
	d.min_nodes * d.gpus_per_node <= 4 and capped_told,
	tostring(d and d.message))
d = plan_capped("tiny", "70e9")
check("no size fits the QOS: refused naming it",
	d and d.action == "reject" and d.reason == "limit" and
	tostring(d.message):find("QOS tiny MaxTRESPerJob=gres/gpu=1", 1, true),
	tostring(d and d.message))
d = plan_capped("nosuch")
check("a QOS the snapshot lacks: as submitted, said",
	d and d.action == "none" and
	tostring(d.message):find("not sized: QOS nosuch is not among", 1, true),
	tostring(d and d.message))
-- the unknown QOS has them read again soon (2 s): by a helper that
-- cannot run, here
os.execute("sleep 2.1")
r, err = autosize.read_limits(TMP .. "/no-such-helper")
local kept = plan_capped()
check("a helper that cannot run: said once, the last snapshot kept",
	r == nil and tostring(err):find("cannot run") and kept and
	kept.action == "rewrite", tostring(err))
-- Time without jobs does not age the snapshot: the first job after an
-- idle spell is planned on it while a new one is read; only a snapshot
-- no helper replaced for the stale time since jobs found it due is not
-- used (1 s and 2 s here stand in for 30 s and 5 minutes).
local helper2 = TMP .. "/limits-helper-2"
write_now(helper2, (read(helper):gsub("user_gpus=4", "user_gpus=2")))
os.execute("chmod 755 " .. helper2)
-- (the new snapshot's cap of 2 GPUs refuses a 7B model: which
-- snapshot planned a job shows)
local function capped_at_2(dd)
	return dd and dd.action == "reject" and tostring(dd.message):find(
		"QOS normal MaxTRESPerUser=gres/gpu=2 allows fewer", 1, true)
end
for _ = 1, 150 do
	autosize.read_limits(helper2, 1, 2)
	d = plan_capped()
	if capped_at_2(d) then break end
	os.execute("sleep 0.05")
end
check("a new snapshot replaces the last (the cap 4 became 2)",
	capped_at_2(d), tostring(d and d.message))
os.execute("sleep 2.5")
autosize.read_limits(TMP .. "/no-such-helper", 1, 2)
d = plan_capped()
check("an idle spell longer than the stale time: the first job after " ..
	"it is planned on the last snapshot",
	capped_at_2(d), tostring(d and d.message))
os.execute("sleep 2.2")
autosize.read_limits(TMP .. "/no-such-helper", 1, 2)
d = plan_capped()
check("...while jobs come and no new one is read for the stale time, " ..
	"as submitted, saying why",
	d and d.action == "none" and
	tostring(d.message):find("the last were read %d+ s ago, none in " ..
		"%d+ s since; the last try: cannot run"),
	tostring(d and d.message))
r, err = autosize.read_limits("relative/autosize")
check("the helper must be an absolute path", r == nil and
	tostring(err):find("absolute path"), tostring(err))
autosize.read_limits("")
d = plan_capped()
check("limits_cli \"\": planned without Slurm's limits",
	d and d.action == "rewrite" and not tostring(d.message):find("QOS"),
	tostring(d and d.message))

AUTOSIZE_SETTINGS = { cpath = BUILD .. "/?.so", policy = good,
	limits_cli = "" }
slurm_job_submit, slurm_job_modify = nil, nil
dofile("etc/job_submit.lua")
fake.info = {}
for i = 1, 70 do
	reset()
	jd, writes = job_desc({ partition = "h100", script = "x",
		spank_job_env = env(P .. "model=llama-3-8b",
			P .. "train_tokens=1e11") })
	slurm_job_submit(jd, {}, 1000)
end
check("admins' lines: at most 60 a minute", #fake.info <= 60 and
	#fake.info >= 1, tostring(#fake.info))

-- The policy's rules per account and QOS: job_submit.lua passes the
-- account Slurm gives the job (its user's default when it names none)
-- and the QOS it names, else its association's default.
local rulesp = TMP .. "/rules.yaml"
write(rulesp, POLICY_TEXT .. "\nrules:\n" ..
	"  - accounts: [lab]\n    qos: [normal]\n    partition: l40s\n" ..
	"    max_gpus: 4\n" ..
	"  - accounts: [lab]\n    mode: off\n")
AUTOSIZE_SETTINGS = { cpath = BUILD .. "/?.so", policy = rulesp,
	limits_cli = "" }
slurm_job_submit, slurm_job_modify = nil, nil
dofile("etc/job_submit.lua")
local function rules_submit(fields)
	reset()
	fields.script = "x"
	fields.spank_job_env = env(P .. "model_params=1e9",
		P .. "train_tokens=1e10")
	jd, writes = job_desc(fields)
	return slurm_job_submit(jd, {}, 1000)
end
local function gpus_written()
	local per = tonumber(tostring(writes.tres_per_node):match(":(%d+)$"))
	return per and writes.min_nodes and per * writes.min_nodes
end
rules_submit({ default_account = "lab", default_qos = "normal" })
check("a rule by the defaults' account and QOS: its partition, its cap",
	writes.partition == "l40s" and gpus_written() and
	gpus_written() <= 4 and user_text():find("autosize rule for " ..
		"account lab, QOS normal max_gpus=4", 1, true), user_text())
rules_submit({ account = "lab", default_account = "ml",
	default_qos = "normal" })
check("the account the job names, not its default",
	writes.partition == "l40s", user_text())
rules_submit({ default_account = "lab", qos = "short",
	default_qos = "normal" })
check("the QOS the job names, not its default: the next rule (off)",
	count(writes) == 0 and #fake.user == 0, user_text())
rules_submit({ default_account = "ml", default_qos = "normal" })
check("no rule: the defaults (no cap)", gpus_written() and
	gpus_written() > 4, user_text())
check("a rule of mode off still refuses bad options",
	(function()
		reset()
		jd, writes = job_desc({ script = "x", default_account = "lab",
			qos = "short", spank_job_env = env(
				P .. "model_params=abc") })
		return slurm_job_submit(jd, {}, 1000) ~= slurm.SUCCESS and
			user_text():find("model%-params")
	end)(), user_text())

-- Slurm segments on GB200 NVL72 racks (18 trays of 4 GPUs): a plan past
-- one rack names its segment, which job_submit.lua writes where Slurm
-- exposes segment_size (25.11+: reads 0 or NO_VAL16 when unset), tells
-- the user to pass where it does not (older: nil), and never replaces
-- the job's own.
local gbp = TMP .. "/gb200.yaml"
write(gbp, (POLICY_TEXT:gsub("\npartitions:\n", "\npartitions:\n" ..
	"  - name: gb200\n    gpu: GB200\n    gpus_per_node: 4\n" ..
	"    nodes: 288\n    max_nodes_per_job: 288\n" ..
	"    max_time: 30-00:00:00\n    network: ib\n" ..
	"    network_gbps_per_node: 1600\n\n", 1)))
AUTOSIZE_SETTINGS = { cpath = BUILD .. "/?.so", policy = gbp,
	limits_cli = "" }
slurm_job_submit, slurm_job_modify = nil, nil
dofile("etc/job_submit.lua")
local gb_args = "--partition gb200 --model qwen3-235b-a22b " ..
	"--train-tokens 2e12 --train-time 30d"
local gb_want = cli_plan(gbp, gb_args)
gb_want.segment = tonumber(gb_want.raw:match('"segment_nodes":(%d+)'))
check("gb200: the CLI plans past a rack in segments dividing its nodes",
	gb_want.nodes and gb_want.nodes > 18 and gb_want.segment and
	gb_want.segment >= 2 and gb_want.segment <= 18 and
	gb_want.nodes % gb_want.segment == 0, gb_want.raw)
local function gb_submit(fields)
	reset()
	fields.partition = fields.partition or "gb200"
	fields.script = "x"
	fields.spank_job_env = fields.spank_job_env or
		env(P .. "model=qwen3-235b-a22b", P .. "train_tokens=2e12",
			P .. "train_time=30d")
	jd, writes = job_desc(fields)
	return slurm_job_submit(jd, {}, 1000)
end
-- The CLI's plan, or, where slurmctld's search stopped at its CPU-time
-- budget (AUTOSIZE_PLAN_MAX_SEARCH_MS, a loaded machine) and says so,
-- its own: nodes and a segment dividing them.
local function gb_planned()
	if user_text():find("work budget", 1, true) then
		local seg = writes.segment_size or tonumber(
			user_text():match("sbatch %-%-segment=(%d+)"))
		return writes.min_nodes and seg and seg >= 2 and
			writes.min_nodes % seg == 0, seg
	end
	return writes.min_nodes == gb_want.nodes, gb_want.segment
end
local ok_plan, seg
check("segment_size unset (0, Slurm 25.11+): written as planned",
	gb_submit({ segment_size = 0 }) == slurm.SUCCESS and
	select(1, gb_planned()) and
	writes.segment_size == select(2, gb_planned()) and
	writes.min_nodes % writes.segment_size == 0 and
	user_text():find("segment size (not set) -> " ..
		tostring(writes.segment_size), 1, true), user_text())
check("segment_size NO_VAL16 (a client other than sbatch): written",
	gb_submit({ segment_size = 65534 }) == slurm.SUCCESS and
	writes.segment_size == select(2, gb_planned()), user_text())
ok_plan = gb_submit({}) == slurm.SUCCESS
local planned
planned, seg = gb_planned()
ok_plan = ok_plan and planned
check("segment_size nil (Slurm before 25.11): not written, the user " ..
	"told to pass --segment",
	ok_plan and writes.segment_size == nil and
	user_text():find("sbatch --segment=" .. tostring(seg), 1, true) and
	#fake.error == 0, user_text())
check("the job's own --segment=12: kept, nodes a multiple of it",
	gb_submit({ segment_size = 12 }) == slurm.SUCCESS and
	writes.segment_size == nil and writes.min_nodes and
	writes.min_nodes % 12 == 0 and
	not user_text():find("--segment", 1, true), user_text())
check("h100 (a node's NVLink): no segment written or asked for",
	gb_submit({ partition = "h100", segment_size = 0,
		spank_job_env = env(P .. "model=llama-3-70b",
			P .. "train_tokens=1e12") }) ==
	slurm.SUCCESS and writes.min_nodes and writes.segment_size == nil and
	not user_text():find("segment", 1, true), user_text())

-- Lua 5.1 syntax check of the script itself.
check("job_submit.lua compiles under luac5.1 -p or loadfile",
	loadfile("etc/job_submit.lua") ~= nil)

os.execute("rm -rf " .. TMP)
print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
