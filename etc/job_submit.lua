--[[
slurm-autosize: job_submit.lua for slurmctld (JobSubmitPlugins=lua).
Lua 5.1, as Debian's job_submit_lua.so links liblua5.1.

Jobs submitted with autosize options (sbatch --model-params=70e9
--train-tokens=2T ...; the SPANK plugin sends them in spank_job_env) are
sized by the autosize C module (autosize.so) under the site policy
(autosize.yaml): node count, GPUs per node, time limit, partition. Jobs
without autosize options are never touched: not one field is written.

Installed as /etc/slurm/autosize/job_submit.lua. Two ways to use it:

 1. As slurmctld's script: copy or symlink it to job_submit.lua next to
    slurm.conf. It defines slurm_job_submit and slurm_job_modify.

 2. From a site's own job_submit.lua, which keeps its own logic:

      AUTOSIZE_SETTINGS = { policy = "/etc/slurm/autosize/autosize.yaml" }
      dofile("/etc/slurm/autosize/job_submit.lua")

      function slurm_job_submit(job_desc, part_list, submit_uid)
          -- ... the site's own checks ...
          local rc = autosize_job_submit(job_desc, part_list, submit_uid)
          if rc ~= slurm.SUCCESS then return rc end
          -- ... more site logic, seeing the sized job ...
          return slurm.SUCCESS
      end

    This file defines slurm_job_submit / slurm_job_modify only when they
    are not defined yet, so a site's own definitions (before or after the
    dofile) win. autosize_job_submit never raises: it returns slurm.SUCCESS
    or a Slurm error code.

Settings: the `settings` table below; then the global AUTOSIZE_SETTINGS
table if a site script set one before dofile; then, if it exists, the file
autosize_site.lua in the folder of this script (a test cluster writes its
build folder there), which may change the global AUTOSIZE_SETTINGS or
return a table of settings. slurmctld has no reliable environment, so no
environment variable is read.

Safety: a broken autosize_site.lua or a missing autosize.so is logged with
slurm.log_error and autosize jobs then pass unchanged (a script error at
slurmctld start would be fatal; this file never raises at load time).
]]

local settings = {
	-- make install and the Debian package replace the cpath and policy
	-- values below with the Makefile's luamoddir (Slurm's plugin folder
	-- for this machine's multiarch, + /lua) and sysconfdir; these are
	-- Debian amd64's. Change them in autosize_site.lua, not here.
	-- Where autosize.so is: an absolute path, "?" standing for
	-- "autosize" (loaded with package.loadlib, never require).
	cpath = "/usr/lib/x86_64-linux-gnu/slurm-wlm/lua/?.so",
	-- The site policy; re-read whenever the file changes.
	policy = "/etc/slurm/autosize/autosize.yaml",
	-- The autosize command, run as a helper (never waited for) to read
	-- the QOS and association limits Slurm enforces: jobs are planned
	-- within them. "" plans without them (so does the policy's
	-- slurm_limits: off).
	limits_cli = "/usr/bin/autosize",
	-- Optional overrides, in the folder of this script.
	site_file = "autosize_site.lua",
	-- Metrics of the decisions (counters, decision time) in Prometheus'
	-- text format for node exporter's textfile collector, e.g.
	-- "/var/lib/prometheus/node-exporter/autosize.prom"; nil: none.
	-- Replaced whole (temporary file and rename) at most every
	-- metrics_every seconds, on a decision (doc/admins.md "Metrics").
	metrics_file = nil,
	metrics_every = 15,
}

local OPTION_PREFIX = "_SLURM_SPANK_OPTION_autosize_"
local ENV_MAX = 4096                  -- AUTOSIZE_JOBENV_MAX_ENTRIES
local NO_VAL = 4294967294             -- slurm.h NO_VAL
local INFINITE = 4294967295           -- slurm.h INFINITE

-- slurm.log_user / log_error take a format: never pass text as format.
local function log_error(text)
	if slurm and slurm.log_error then
		slurm.log_error("%s", text)
	end
end

local function log_info(text)
	if slurm and slurm.log_info then
		slurm.log_info("%s", text)
	end
end

local function log_user(text)
	if slurm and slurm.log_user then
		slurm.log_user("%s", text)
	end
end

local function script_dir()
	local info = debug and debug.getinfo and debug.getinfo(1, "S")
	local src = info and info.source or ""
	if src:sub(1, 1) ~= "@" then
		return nil
	end
	return src:sub(2):match("^(.*)/[^/]*$") or "."
end

local function apply_settings(t)
	if type(t) ~= "table" then
		return
	end
	for _, k in ipairs({ "cpath", "policy", "site_file",
			     "metrics_file" }) do
		if type(t[k]) == "string" and t[k] ~= "" then
			settings[k] = t[k]
		end
	end
	if type(t.limits_cli) == "string" then
		settings.limits_cli = t.limits_cli
	end
	if type(t.metrics_every) == "number" then
		settings.metrics_every = t.metrics_every
	end
end

apply_settings(rawget(_G, "AUTOSIZE_SETTINGS"))
do
	local dir = script_dir()
	local path = settings.site_file
	if dir and path:sub(1, 1) ~= "/" then
		path = dir .. "/" .. path
	end
	local f = io.open(path, "r")
	if f then
		f:close()
		local ok, result = pcall(dofile, path)
		if ok then
			apply_settings(result)
			apply_settings(rawget(_G, "AUTOSIZE_SETTINGS"))
		else
			log_error("autosize: " .. path .. ": " .. tostring(result) ..
				" (ignored)")
		end
	end
end

-- The C module, loaded once; a failure is logged once per message.
local autosize_module = nil
local last_load_error = nil

-- The module is loaded from its absolute path (package.loadlib), never
-- through require: a file named autosize.lua or autosize.so planted in
-- slurmctld's working directory or another package.path / package.cpath
-- folder must not be loaded in its place.
local function module_file()
	local file = settings.cpath:gsub("%?", "autosize")
	if file:sub(1, 1) ~= "/" then
		return nil, "cpath " .. settings.cpath .. " is not an absolute path"
	end
	return file
end

local function load_module()
	if autosize_module then
		return autosize_module
	end
	local file, err = module_file()
	local mod = nil
	if file then
		local open
		open, err = package.loadlib(file, "luaopen_autosize")
		if open then
			local ok
			ok, mod = pcall(open)
			if not ok then
				err, mod = mod, nil
			end
		end
	end
	if type(mod) == "table" and mod.plan then
		autosize_module = mod
		if mod.metrics_file then
			local ok, merr = mod.metrics_file(settings.metrics_file,
				settings.metrics_every)
			if not ok and merr then
				log_error(merr)
			end
		end
		return mod
	end
	local msg = "autosize: cannot load " .. tostring(file or settings.cpath) ..
		": " .. tostring(err) .. " (autosize jobs pass unchanged)"
	if msg ~= last_load_error then
		last_load_error = msg
		log_error(msg)
	end
	return nil
end

-- Slurm's limits are read by a helper process from the start, so the
-- first jobs find them read.
local function read_limits(mod)
	if not mod.read_limits then
		return
	end
	local ok, err = mod.read_limits(settings.limits_cli)
	if not ok and err then
		log_error(err)  -- once per new failure
	end
end

do
	local mod = load_module()
	if mod then
		mod.load_policy(settings.policy)
		read_limits(mod)
	end
end

-- true when an entry of spank_job_env (a 0-based array, at most
-- ENV_MAX entries looked at) satisfies match.
local function env_any(env, match)
	if type(env) ~= "table" then
		return false
	end
	local i = env[0] ~= nil and 0 or 1
	local last = i + ENV_MAX - 1
	while i <= last do
		local v = env[i]
		if v == nil then
			return false
		end
		if type(v) == "string" and match(v) then
			return true
		end
		i = i + 1
	end
	return false
end

-- true when spank_job_env carries an autosize option (cheap, in Lua, so
-- other jobs never reach the module).
local function has_autosize_option(env)
	return env_any(env, function(v)
		return v:sub(1, #OPTION_PREFIX) == OPTION_PREFIX
	end)
end

-- true when spank_job_env has exactly this entry.
local function env_has(env, entry)
	return env_any(env, function(v) return v == entry end)
end

local function is_set(v)
	return type(v) == "number" and v ~= NO_VAL and v >= 0
end

local function fmt_minutes(m)
	if m == INFINITE then
		return "UNLIMITED"
	end
	if not is_set(m) then
		return "(not set)"
	end
	local d = math.floor(m / 1440)
	local h = math.floor((m % 1440) / 60)
	local mm = m % 60
	if d > 0 then
		return string.format("%d-%02d:%02d:00", d, h, mm)
	end
	return string.format("%02d:%02d:00", h, mm)
end

local function fmt_count(v)
	if not is_set(v) then
		return "(not set)"
	end
	return tostring(v)
end

local function on_error_rejects(mod)
	local ok, info = pcall(mod.policy_info)
	return ok and type(info) == "table" and info.on_error == "reject"
end

local function reject_code(reason)
	if reason == "unfit" then
		return slurm.ESLURM_INVALID_NODE_COUNT or slurm.ERROR
	elseif reason == "limit" then
		return slurm.ESLURM_ACCOUNTING_POLICY or slurm.ERROR
	elseif reason == "time" then
		return slurm.ESLURM_INVALID_TIME_LIMIT or slurm.ERROR
	end
	return slurm.ERROR
end

-- Write into job_desc exactly the fields the module marked in d.set (its
-- guards have cleared them where the job could not run resized); returns
-- the "old -> new" list.
local function rewrite(job_desc, d)
	local changes = {}
	local replaced = d.explicit or {}
	local note = function(what, old, new, explicit)
		changes[#changes + 1] = string.format("%s %s -> %s%s", what,
			old, new, explicit and " (replaces yours)" or "")
	end

	if d.set.partition and d.partition then
		note("partition", job_desc.partition or "(default)",
			d.partition, false)
		job_desc.partition = d.partition
	end
	if d.set.nodes and d.min_nodes then
		note("nodes", fmt_count(job_desc.min_nodes), d.min_nodes,
			replaced.nodes)
		job_desc.min_nodes = d.min_nodes
		job_desc.max_nodes = d.max_nodes or d.min_nodes
	end
	if d.set.tasks and d.num_tasks and job_desc.script ~= nil then
		note("tasks", fmt_count(job_desc.num_tasks), d.num_tasks, false)
		job_desc.num_tasks = d.num_tasks
		-- sbatch already wrote the old count into the batch job's
		-- environment; srun in the script reads it.
		job_desc.environment["SLURM_NTASKS"] = tostring(d.num_tasks)
		job_desc.environment["SLURM_NPROCS"] = tostring(d.num_tasks)
	end
	if d.set.gpus and d.gpus_per_node and d.tres_per_node then
		-- the GPU entry edited by the module (type and other gres kept)
		local gpus = d.tres_per_node
		note("GPUs per node", job_desc.tres_per_node or "(not set)",
			gpus, replaced.gpus)
		job_desc.tres_per_node = gpus
		-- the job's per-job GPU entries dropped by the module (the
		-- one reader of GPU requests, core/gres.c), the rest kept
		local per_job = job_desc.tres_per_job
		if per_job and per_job ~= "" and d.tres_per_job then
			local rest = d.tres_per_job
			if rest ~= per_job then
				note("GPUs per job", per_job,
					rest ~= "" and rest or "(none)", true)
				job_desc.tres_per_job = rest
			end
		end
		-- sbatch already wrote the old value into a batch job's
		-- environment; srun in the script reads it.
		if job_desc.script ~= nil then
			job_desc.environment["SLURM_GPUS_PER_NODE"] =
				tostring(d.gpus_per_node)
		end
	end
	-- CPUs and memory per GPU: the tres string, and a batch job's
	-- environment, which srun in the script reads (the job set none:
	-- those are never replaced)
	local function per_gpu(what, field, value, var, unit)
		note(what, job_desc[field] or "(not set)", value .. unit,
			false)
		job_desc[field] = d[field]
		if job_desc.script ~= nil then
			job_desc.environment[var] = tostring(value)
		end
	end
	if d.set.cpus and d.cpus_per_tres then
		per_gpu("CPUs per GPU", "cpus_per_tres", d.cpus_per_gpu,
			"SLURM_CPUS_PER_GPU", "")
	end
	if d.set.mem and d.mem_per_tres then
		per_gpu("memory per GPU", "mem_per_tres", d.mem_per_gpu,
			"SLURM_MEM_PER_GPU", "M")
	end
	-- Slurm segments (sbatch --segment, 25.11+ in job_submit: the module
	-- sets this only where job_desc.segment_size could be read): each
	-- segment's nodes inside one NVLink rack, as the plan assumes
	if d.set.segment and d.segment_size then
		note("segment size", "(not set)", d.segment_size, false)
		job_desc.segment_size = d.segment_size
	end
	if d.set.time and d.time_limit then
		note("time limit", fmt_minutes(job_desc.time_limit),
			fmt_minutes(d.time_limit), replaced.time)
		job_desc.time_limit = d.time_limit
	end
	-- a chained job's follower waits for the job before it (sbatch
	-- copied the first job's command line, its --dependency with it:
	-- that one held the run's start, already past)
	if d.dependency and job_desc.script ~= nil then
		note(string.format("job %d of %d's dependency",
			d.chain_index or 0, d.chained_jobs or 0),
			job_desc.dependency or "(none)", d.dependency,
			job_desc.dependency ~= nil and job_desc.dependency ~= "")
		job_desc.dependency = d.dependency
	end
	return changes
end

-- The plan travels with the job: appended to the AdminComment (users
-- cannot edit it; slurmdbd keeps it with the job's elapsed time), after
-- what the site wrote there (README "The closed loop").
local function attach_record(job_desc, mod, d)
	if not d.record or not mod.attach_record then
		return
	end
	local comment = mod.attach_record(job_desc.admin_comment, d.record)
	if comment then
		job_desc.admin_comment = comment
	end
	-- A batch job's steps inherit its environment: the nodes lay out
	-- this plan, whatever policy they hold (srun and salloc jobs have
	-- no environment here and are laid out on the nodes); a job of a
	-- preemptible partition is told so.
	if job_desc.script ~= nil then
		job_desc.environment["AUTOSIZE_RECORD"] = d.record
		if d.preemptible then
			job_desc.environment["AUTOSIZE_PREEMPTIBLE"] = "1"
		end
	end
end

-- One line for the admins in slurmctld's log, at most a minute's burst
-- (the module's rate limit): a user's --test-only loop reaches here too.
-- The lines dropped are counted in the next one written.
local function admin_log(mod, line)
	local ok, missed = true, 0
	if mod and mod.admin_log_ok then
		ok, missed = mod.admin_log_ok()
	end
	if not ok then
		return
	end
	if missed and missed > 0 then
		log_info(string.format("autosize: %d admin lines not " ..
			"logged (more than 60 a minute)", missed))
	end
	log_info(line)
end

-- One line per sized job (job ids are not known yet at submit time).
-- The name is the user's: no control characters (a newline would forge
-- slurmctld log lines).
local function log_sized(mod, job_desc, submit_uid, changes)
	admin_log(mod, string.format("autosize: uid %s job %s: %s",
		tostring(submit_uid),
		(tostring(job_desc.name):gsub("%c", "?")),
		table.concat(changes, ", ")))
end

-- One stable line per refused submission (they never reach accounting;
-- `autosize report --ctld-log` counts them by reason and the option the
-- message names), rate-limited as above: counts from the log are lower
-- bounds. Called through pcall: a refusal stays one whatever happens.
local function log_refused(mod, submit_uid, reason, message)
	local msg = tostring(message or ""):gsub("%c", "?")
	local what = msg:match("^(%-%-[%w%-]+)") or "-"
	admin_log(mod, string.format("autosize: refused: reason=%s what=%s " ..
		"uid=%s: %s", (tostring(reason or "-"):gsub("[^%w_]", "?")),
		what, tostring(submit_uid), msg))
end

-- Apply a decision: the fields the module set, the plan record, the
-- admins' line. Every action that changes a job comes through here.
local function apply(job_desc, mod, d, submit_uid)
	local changes = rewrite(job_desc, d)
	attach_record(job_desc, mod, d)
	if #changes > 0 then
		log_sized(mod, job_desc, submit_uid, changes)
	end
	return changes
end

local function submit(job_desc, part_list, submit_uid)
	local env = job_desc.spank_job_env
	if not has_autosize_option(env) then
		return slurm.SUCCESS
	end
	local mod = load_module()
	if not mod then
		return slurm.SUCCESS
	end
	local ok, perr = mod.load_policy(settings.policy)
	if not ok and perr then
		log_error(perr)  -- once per broken version of the file
	elseif perr then
		log_info(perr)   -- loaded, dated ahead of this host's clock
	end
	read_limits(mod)
	local job = {
		partition = job_desc.partition,
		min_nodes = job_desc.min_nodes,
		max_nodes = job_desc.max_nodes,
		time_limit = job_desc.time_limit,
		num_tasks = job_desc.num_tasks,
		tres_per_node = job_desc.tres_per_node,
		tres_per_job = job_desc.tres_per_job,
		tres_per_task = job_desc.tres_per_task,
		tres_per_socket = job_desc.tres_per_socket,
		sockets_per_node = job_desc.sockets_per_node,
		het_job_offset = job_desc.het_job_offset,
		ntasks_per_node = job_desc.ntasks_per_node,
		-- nil before Slurm 25.11 (not exposed to job_submit)
		segment_size = job_desc.segment_size,
		-- srun and salloc jobs have no script; their first step is
		-- laid out with their own task count (the module's guard).
		batch = job_desc.script ~= nil,
		-- the policy's exempt users and accounts and its rules;
		-- the QOS and association whose limits the plan keeps
		-- within (nil when the job names none: slurmctld's
		-- defaults for the user, nil when it has none)
		uid = submit_uid,
		account = job_desc.account or job_desc.default_account,
		qos = job_desc.qos,
		default_qos = job_desc.qos == nil and job_desc.default_qos or nil,
		-- the GPU type of -C a100; whole nodes (shared 0 is
		-- --exclusive); the job's own CPUs and memory
		features = job_desc.features,
		shared = job_desc.shared,
		cpus_per_tres = job_desc.cpus_per_tres,
		mem_per_tres = job_desc.mem_per_tres,
		cpus_per_task = job_desc.cpus_per_task,
		min_mem_per_cpu = job_desc.min_mem_per_cpu,
		min_mem_per_node = job_desc.min_mem_per_node,
	}
	-- The partitions this job may use, with Slurm's own limits (the
	-- smaller of Slurm's and the policy's wins).
	local parts = nil
	if type(part_list) == "table" then
		parts = {}
		for name, p in pairs(part_list) do
			if type(name) == "string" then
				parts[name] = {
					max_nodes = p.max_nodes,
					total_nodes = p.total_nodes,
					max_time = p.max_time,
					max_cpus_per_node = p.max_cpus_per_node,
					qos = p.qos,
				}
			end
		end
	end
	local d, err = mod.plan(env, job, parts)
	if d == nil then
		if err == nil then
			return slurm.SUCCESS  -- not an autosize job after all
		end
		log_error(string.format("autosize: uid %s: %s",
			tostring(submit_uid), err))
		if on_error_rejects(mod) then
			log_user("autosize: internal error, submission " ..
				"refused by site policy: " .. err)
			pcall(log_refused, mod, submit_uid, "internal", err)
			return slurm.ERROR
		end
		return slurm.SUCCESS
	end
	if d.error then
		log_error(string.format("autosize: uid %s: %s",
			tostring(submit_uid), d.error))
	end
	if d.metrics_error then
		log_error(d.metrics_error)   -- once until a write works again
	end
	local action = d.action
	if action == "reject" then
		log_user("autosize: " .. (d.message or "job refused"))
		pcall(log_refused, mod, submit_uid, d.reason, d.message)
		return reject_code(d.reason)
	end
	-- The plan and its warnings are told here, once, for the job as it
	-- will run (the submit side cannot see -N, -p, -t and says nothing).
	local function show_plan()
		log_user("autosize: plan: " .. (d.plan or ""))
	end
	if action == "explain" and
	   not env_has(job_desc.spank_job_env, "AUTOSIZE_EXPLAIN=test-only") then
		-- A client without the plugin: nothing may be queued.
		show_plan()
		for _, w in ipairs(d.warnings or {}) do
			log_user("autosize: warning: " .. w)
		end
		log_user("autosize: --autosize=explain: nothing submitted " ..
			"(use sbatch --test-only to see when it would start)")
		return slurm.ERROR
	end
	if action == "rewrite" or action == "explain" then
		-- The one path that changes a job. The test-only marker
		-- comes from the client and proves nothing (a user can send
		-- it with a real submission): an explain is sized, guarded,
		-- recorded and logged exactly as a rewrite; only its words
		-- differ.
		local changes = apply(job_desc, mod, d, submit_uid)
		if d.guarded then
			log_user("autosize: " .. (d.message or "not resized"))
		elseif action == "explain" then
			log_user("autosize: --autosize=explain (--test-only: " ..
				"nothing submitted): slurmctld would queue " ..
				"this job with " ..
				(#changes > 0 and table.concat(changes, ", ") or
				 "no change"))
		elseif #changes > 0 then
			log_user("autosize: " .. table.concat(changes, ", "))
		end
		show_plan()
	elseif action == "warn" then
		log_user("autosize: " .. (d.message or ""))
	elseif d.message then
		-- kept size and time: the plan is still this job's
		attach_record(job_desc, mod, d)
		log_user("autosize: " .. d.message)
	end
	for _, w in ipairs(d.warnings or {}) do
		log_user("autosize: warning: " .. w)
	end
	return slurm.SUCCESS
end

-- The entry point for a site's own job_submit.lua. Never raises.
function autosize_job_submit(job_desc, part_list, submit_uid)
	local ok, rc = pcall(submit, job_desc, part_list, submit_uid)
	if ok then
		return rc
	end
	log_error("autosize: job_submit.lua: " .. tostring(rc))
	if autosize_module and on_error_rejects(autosize_module) then
		log_user("autosize: internal error, submission refused by " ..
			"site policy")
		return slurm.ERROR
	end
	return slurm.SUCCESS
end

-- Whether slurm.log_user() in job_modify reaches the user: Slurm 23.02
-- (API 39) and later hand it to scontrol; 22.05 discards it with an
-- error: line in slurmctld's log ("Use of log.user() in job_modify is
-- not supported"). The running slurmctld's API first, else the release
-- the module was built for; unknown: not (a log line, never an error).
local function modify_tells_user(mod)
	local s = type(mod.slurm) == "table" and mod.slurm or {}
	local api = tonumber(s.api_major)
	if api then
		return api >= 39
	end
	local y, m = tostring(s.built_for or ""):match("^(%d+)%.(%d+)")
	return y ~= nil and tonumber(y) * 100 + tonumber(m) >= 2302
end

-- scontrol update of a sized job: the change is Slurm's to allow; the
-- plan record then describes another job, and the user or admin is told
-- (calibration compares the record with what accounting says the job
-- got, and leaves such a job out). On 22.05 it is slurmctld's log that
-- says so, at info (doc/users.md): scontrol shows the user nothing.
local function modify(job_desc, job_rec)
	local mod = load_module()
	if not mod or not mod.record_check or type(job_rec) ~= "table" and
	   type(job_rec) ~= "userdata" then
		return
	end
	local why = mod.record_check(job_rec.admin_comment, {
		partition = job_desc.partition,
		min_nodes = job_desc.min_nodes,
		tres_per_node = job_desc.tres_per_node,
		time_limit = job_desc.time_limit,
	})
	if not why then
		return
	end
	local text = "this job was sized by autosize; after this change (" ..
		why .. ") its plan no longer describes it: its speed will " ..
		"not calibrate the site's plans (resubmit to have it sized " ..
		"again)"
	if modify_tells_user(mod) then
		log_user("autosize: " .. text)
	else
		admin_log(mod, string.format("autosize: job %s: %s",
			(tostring(job_rec.job_id):gsub("%c", "?")), text))
	end
end

function autosize_job_modify(job_desc, job_rec, part_list, modify_uid)
	local ok, err = pcall(modify, job_desc, job_rec)
	if not ok then
		log_error("autosize: job_submit.lua (modify): " .. tostring(err))
	end
	return slurm.SUCCESS
end

if rawget(_G, "slurm_job_submit") == nil then
	slurm_job_submit = autosize_job_submit
end
if rawget(_G, "slurm_job_modify") == nil then
	slurm_job_modify = autosize_job_modify
end
