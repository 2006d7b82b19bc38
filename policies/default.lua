-- The reference behaviour (DESIGN.md §3, NSYS_FACTS.md, STUDIO_PROTOCOL.md §6). Every field is
-- documented in docs/POLICY.md. A fleet policy overrides a few fields with `extends = "default"`.
return {
  discover = {
    -- Sources in the order they are tried; the first candidate whose `nsys --version` parses wins.
    -- Within one glob source the newest version wins (sorted by version number, not as strings).
    order = { "explicit", "env", "path", "cuda", "opt", "target", "distro", "nsight-compute" },
    sources = {
      cuda = { "/usr/local/cuda*/bin/nsys" },
      opt = { "/opt/nvidia/nsight-systems/*/bin/nsys" },
      target = {
        "/opt/nvidia/nsight-systems/*/target-linux-*/nsys",
        "/opt/nvidia/nsight-systems-cli/*/target-linux-*/nsys",
      },
      distro = { "/usr/lib/nsight-systems/bin/nsys", "/usr/lib/*/nsight-systems/target-linux-*/nsys" },
      ["nsight-compute"] = { "/opt/nvidia/nsight-compute/*/host/target-linux-*/nsys" },
    },
    env_var = "NSYS_PATH",
    version_timeout = 30,
    -- The install check: nsys turns its raw capture (.qdstrm) into a report with QdstrmImporter, which
    -- it looks for in these places relative to the directory of the nsys binary it runs (measured with
    -- nsys 2022.4). Debian's split packages put it elsewhere; `importer_sources` are where it is then
    -- found (newest first), so a capture can import the .qdstrm itself and `discover` can print the fix.
    importer_dirs = { "../host-linux-x64", ".", "host-linux-x64" },
    importer_sources = {
      "/usr/lib/nsight-systems/host-linux-*/QdstrmImporter",
      "/opt/nvidia/nsight-systems/*/host-linux-*/QdstrmImporter",
    },
  },

  -- nsys's own report names per version: the first era whose `since` is <= the nsys version applies;
  -- a report an era does not list keeps its current name. Reports were renamed at 2023.1
  -- (NSYS_FACTS.md §4; the 2022.4 names are the scripts in its reports/ directory).
  nsys = {
    report_eras = {
      { since = "2023.1", names = {} },
      { since = "0", names = {
        cuda_gpu_kern_sum = "gpukernsum", cuda_api_sum = "cudaapisum", cuda_gpu_trace = "gputrace",
        cuda_api_trace = "cudaapitrace", nvtx_sum = "nvtxsum", nvtx_pushpop_trace = "nvtxpptrace",
        nvtx_pushpop_sum = "nvtxppsum", nvtx_gpu_proj_trace = "nvtxgpuproj", osrt_sum = "osrtsum",
        cuda_gpu_mem_time_sum = "gpumemtimesum", cuda_gpu_mem_size_sum = "gpumemsizesum",
        nvtx_kern_sum = "nvtxkernsum", cuda_kern_exec_sum = "kernexecsum", cuda_kern_exec_trace = "kernexectrace",
      } },
    },
  },

  capture = {
    -- Seconds: bounds a workload-less session, and the timeout is duration + timeout_extra.
    duration = 60,
    timeout_extra = 120,
    kill_grace = 5,
    trace = "cuda,nvtx",
    sample = "none",
    -- --cpuctxsw MODE; "" passes nothing (nsys's default, process-tree). "none" with sample "none"
    -- turns CPU collection off completely.
    cpuctxsw = "",
    -- nsys left its raw capture (.qdstrm) instead of a report (its QdstrmImporter was not found, as
    -- in Debian's split packages): "import" runs the importer discover found, "fail" stops (exit 4)
    -- naming the fix. The .qdstrm is removed after a successful import unless keep_qdstrm.
    qdstrm = "import",
    keep_qdstrm = false,
    import_timeout = 600,
    -- Once nsys has printed that it skips the import, it has decided: a profile still running this
    -- many seconds later is stopped (with everything it started) instead of waiting for the timeout.
    decided_grace = 15,
    decided_markers = { "skipping importation of the QDSTRM file" },
    output_name = "capture",
    -- Where the views' stats CSVs come from: "stats" runs `nsys stats` per report (the reference);
    -- "export" runs one `nsys export` and gpuflame writes the same CSVs (docs/REPORTS.md)
    views_from = "stats",
    -- capture directory when --out is not given (os.date format, relative to the current directory)
    out_dir = "gpuflame-%Y%m%d-%H%M%S",
    extra_args = {},
    -- Launch backtraces need CPU sampling (-s process-tree) and cost measurable overhead; a
    -- threshold such as "kernel:1000" (ns) gives short launches a stack too (older nsys default 80 µs).
    stacks = { sample = "process-tree", backtrace = "dwarf", cudabacktrace = "kernel" },
    -- The workload's environment: undo library paths injected by bundlers (PyInstaller _MEI dirs).
    env = {
      restore_orig = { "LD_LIBRARY_PATH", "LD_PRELOAD" },
      strip_patterns = { "/_MEI" },
      set = {},
      unset = {},
    },
  },

  -- NVTX run analysis (`gpuflame analyze`, NVTX_ANALYSIS_SPEC.md): how `nsys stats` is run, and what
  -- `report`/`compare` call out.
  analyze = {
    source = "stats",         -- "stats": `nsys stats` writes stats/*.csv (the spec); "export": gpuflame writes
                              -- them from trace.sqlite (one `nsys export`; docs/REPORTS.md), like --from-export
    force_export = true,      -- pass --force-export=true (a stale trace.sqlite makes nsys refuse otherwise)
    stats_timeout = 3600,     -- seconds `nsys stats` may run before its process group is killed
    top_ranges = 10,          -- ranges listed by host and by projected-GPU total in `report`
    first_iteration_factor = 1.5, -- report a first-iteration effect when iteration 0 > factor x median of the rest
    high_variance_cv = 0.25,  -- report large variance when stddev/mean exceeds this
  },

  -- Fleet mode (docs/POLICY.md "Upload, delivery, agent, tags"). -------------------------------------
  upload = {
    api_version = "v2",               -- /api/v2/profiles (v1 also exists)
    timeout = 120,                    -- seconds per upload request (the reference --server-upload-timeout)
    connect_timeout = 10,
    max_compressed_bytes = 4 * 1024 * 1024, -- the Studio's CONFIG_MAX_CONTENT_LEN, measured on the gzip body
    prefer = { "timeline", "flamegraph" },  -- which page becomes flamegraph_html: first that exists
    -- When the gzip body is over the limit, try these in order: re-render the timeline with fewer
    -- events (retrim_events, the page then says "showing N of M"), send the flamegraph instead, send
    -- the stacks without a page. If still too big the upload fails (artifacts stay on disk).
    oversize = { "retrim", "flamegraph", "no_html" },
    retrim_events = { 10000, 5000, 2000, 1000 },
    perf_mode = "none",               -- never "disabled": the indexer drops the tags then (§4.2)
    tag_names = { gpu = "nsys-cuda", timeline = "nsys-timeline", stacks = "nsys-stacks", perf = "" },
    artifacts = {                     -- file names inside a capture directory
      timeline = "timeline.html", flamegraph = "flamegraph.html",
      gpu_folded = "gpu.folded", cpu_folded = "cpu.folded", launch_folded = "launch-stacks.folded",
      -- what `gpuflame timeline` re-renders from (first group whose globs all match)
      timeline_inputs = { { "*.sqlite" }, { "*cuda_api_trace*.csv", "*cuda_gpu_trace*.csv" } },
    },
  },

  deliver = {
    -- Several sinks may be active: { type = "studio" }, { type = "dir", path = "/srv/{hostname}" },
    -- { type = "http", url = "https://store/{hostname}/{name}", method = "PUT", headers = {...}, artifact = "html" }
    sinks = { { type = "studio" } },
    -- Attempts per delivery; delay before attempt n+1 = min(cap, base * 2^(n-1)) minus up to jitter*100 %.
    retry = { count = 4, base = 1, cap = 30, jitter = 0.5 },
    spool = {
      dir = "",                       -- "" = <state_dir>/spool
      max_items = 200,
      max_bytes = 512 * 1024 * 1024,
      on_full = "drop_oldest",        -- keep the newest captures; "drop_newest" keeps the oldest
    },
  },

  agent = {
    interval = 30,                    -- heartbeat seconds
    state_dir = "/var/lib/gpuflame",  -- gpid, command history, spool, capture directories
    heartbeat_timeout = 30,
    health_check = "warn",            -- "fatal" exits 1 like the reference agent when the server is unreachable
    history = 1000,                   -- command ids remembered across restarts (dedup)
    stop_grace = 2,                   -- seconds between SIGTERM and SIGKILL when a capture is cancelled
    keep_captures = 20,               -- capture directories kept in <state_dir>/captures
    default_duration = 60,
    remote_workloads = {
      enabled = true,                 -- false: every nsys_workload from the server is refused
      allow_file = "/etc/gpuflame/allowed-workloads", -- exact command lines or globs (* ?), one a line
      allow = {},                     -- more patterns, same syntax
      -- Drop privileges for the workload (nsys itself stays root): run it as this user through
      -- `setpriv --reuid U --regid G --init-groups --` (util-linux). "" runs it as the agent's user.
      run_as = "",
      run_as_group = "",              -- "" = the user's primary group
    },
  },

  backends = {
    nsys = { enabled = true },
    -- CPU sampling in parallel with nsys: `perf record -g` → `perf script` → folded (opt-in).
    perf = { enabled = false, frequency = 99, args = { "-a", "-g" }, timeout_extra = 60 },
  },

  -- GPU flamegraph (docs/POLICY.md "flamegraph"): which nsys stats reports feed it, in order, and how
  -- their rows become folded stacks (STUDIO_PROTOCOL.md §6.4-6.5).
  flamegraph = {
    reports = { "cuda_gpu_kern_sum", "cuda_api_sum" },
    -- `-o` base name of each report's CSV in the capture directory (nsys appends _<report>.csv)
    output_names = { cuda_gpu_kern_sum = "kern", cuda_api_sum = "api" },
    -- the fixed frames above each name
    prefixes = { cuda_gpu_kern_sum = "gpu;nsys;cuda_kernel", cuda_api_sum = "gpu;nsys;cuda_api" },
    -- count = max(1, total_ns // unit_ns): 1000 → the counts are microseconds of GPU time
    unit_ns = 1000,
    -- a Total Time that is not a number, negative or out of range: "error" (exit 6 naming file, line and
    -- column) or "one" (count it as 1, the reference's behaviour)
    bad_weight = "error",
    countname = "us",
    title = "GPU time (nsys)",
    colors = "hot",
    minwidth = 0.1,
    inverted = false,
    -- SQLite exports (and .nsys-rep exported to SQLite): kernel totals, then CUDA API totals
    sqlite_sources = { "kernels", "api" },
    -- first line of gpu.folded: "# {json}" with the source, report and unit (flamegraph.pl, inferno and
    -- speedscope skip it)
    folded_metadata = true,
    stats_timeout = 120,
    export_timeout = 300,
  },

  -- CPU/GPU timeline (gpuflame timeline, capture --timeline; docs/POLICY.md "timeline").
  timeline = {
    max_events = 20000,      -- keep the N longest events (the page says "showing N of M events")
    keep_partners = true,    -- also keep the launch call of every kept kernel/memcpy/memset (CorrID links)
    source = "csv",          -- capture --timeline reads the stats trace CSVs ("csv", the reference) or
                             -- the SQLite export ("sqlite"); .sqlite/.nsys-rep inputs always use SQLite
    fallback = "flamegraph", -- no trace events: "flamegraph" (with a warning) or "none" (exit 5)
    title = "nsys CPU/GPU timeline",
    template = "templates/timeline.html",
    -- launch-stack flamegraph in the page: subtrees lighter than this share of the total are folded into
    -- their parent (they would be < 0.2 px wide); the launch-stacks exporter always writes everything
    flame_min_fraction = 0.0001,
    -- thresholds of the bundled scripts (HTA's): launch-stats and gpu-idle
    late_launch_ns = 100000, -- launch delay (kernel start - API end) flagged above this
    short_gap_ns = 30000,    -- GPU idle gaps shorter than this count as kernel wait
  },

  -- Launch backtraces (capture --stacks; flags in capture.stacks).
  stacks = {
    missing = "warn",        -- no CUDA_CALLCHAINS rows: "warn" (timeline without stacks) or "error" (exit 5)
  },

  limits = {
    function_budget = 10, -- seconds any policy function may run before it is stopped
  },
}
