-- The reference behaviour (docs/ARCHITECTURE.md, docs/spec/NSYS.md, docs/spec/STUDIO.md §6). Every field is
-- documented in docs/POLICY.md. A fleet policy overrides a few fields with `extends = "default"`.
return {
  discover = {
    -- Sources in the order they are tried; the first candidate whose `nsys --version` parses wins.
    -- Within one glob source the newest version wins (sorted by version number, not as strings).
    order = { "explicit", "env", "path", "cuda", "opt", "target", "distro", "nsight-compute" },
    -- "order": the first source above with a usable nsys gives it; "newest": every source is looked at
    -- and the newest version found wins (a fleet host with several installs reads the newest reports).
    -- A usable --nsys wins either way.
    prefer = "order",
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
  -- (docs/spec/NSYS.md §4; the 2022.4 names are the scripts in its reports/ directory).
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

  -- SQLite exports of .nsys-rep/.qdrep inputs (lua/gpuflame/exports.lua): one cache for every command,
  -- keyed by the report's content and the nsys version (docs/POLICY.md "exports").
  exports = {
    cache_dir = "",       -- "": $XDG_CACHE_HOME/gpuflame/exports, else ~/.cache/gpuflame/exports
    cache_max_mb = 4096,  -- beyond, the least recently used exports are removed
    beside = false,       -- true: export to <report file>.sqlite beside the report instead (never by default)
  },

  capture = {
    -- Seconds: bounds a workload-less session, and the timeout is duration + timeout_extra.
    duration = 60,
    timeout_extra = 120,
    kill_grace = 5,
    output_tail = 262144,    -- bytes of each nsys command's output kept (the last ones): messages, nsys-profile.log
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
    -- nsys 2022.4 now and then dies before it starts the workload (its launcher: QuadDCommon/ProcessWaiter
    -- "sem_open: No such file or directory", "Agent launcher failed"). Recognised by these texts in its
    -- output, when nsys wrote nothing and the workload was never seen running, `capture`, `launch` and the
    -- agent try again up to start_retries more times, start_backoff seconds later (doubled each time).
    start_retries = 2,
    start_backoff = 2,
    start_failure_markers = { "sem_open", "ProcessWaiter", "QuadDCommon", "Agent launcher failed" },
    output_name = "capture",
    -- Where the views' stats CSVs come from: "export" runs one `nsys export` and gpuflame writes the same
    -- CSVs (docs/REPORTS.md; the SQLite export also feeds the timeline and findings.json); "stats" runs
    -- `nsys stats` per report (the reference integration's path)
    views_from = "export",
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

  -- Live sessions (docs/LIVE.md): `gpuflame launch` runs a job under `nsys launch` (collection off) and
  -- registers it; `gpuflame capture --session NAME` captures windows of it; `gpuflame sessions` lists them.
  live = {
    -- the session registry, private to the user (0700, checked); "" = $XDG_RUNTIME_DIR/gpuflame/sessions,
    -- else /run/gpuflame/sessions for root, else <$TMPDIR or /tmp>/gpuflame-<uid>/sessions (docs/LIVE.md).
    -- A DaemonSet shares one directory between jobs and the agent.
    registry_dir = "",
    ready_timeout = 30,       -- seconds `launch` waits for nsys to start the workload
    -- The bounds of a window's nsys calls (measured here: start 0.8–2.3 s, stop 2–7 s for a 2 s window;
    -- nsys 2022.4 sometimes hangs in either). A call past its bound is ended with what it started and the
    -- window fails naming it. `nsys stop` writes the window's raw capture, so its bound grows with the window:
    -- stop_timeout + stop_timeout_per_s × the window's seconds.
    start_timeout = 30,
    stop_timeout = 30,
    stop_timeout_per_s = 2,
    -- a failed window's raw capture that nsys left in its temp directory (/tmp/nsys-report-XXXX.qdstrm) is
    -- removed; true moves it into the window's --out directory instead
    keep_failed_raw = false,
    control_timeout = 20,     -- seconds `nsys sessions list` / `nsys shutdown` may run
    -- after `launch` passes SIGINT/SIGTERM on to the workload, the seconds it gets to end before the
    -- whole tree (nsys included) is ended
    signal_grace = 10,
    max_wait = 86400,         -- a window's --at further ahead than this many seconds is refused
    launch_args = {},         -- more `nsys launch` flags (before the workload)
    start_args = {},          -- more `nsys start` flags
  },

  -- NVTX run analysis (`gpuflame analyze`, docs/spec/NVTX_ANALYSIS.md): how `nsys stats` is run, and what
  -- `report`/`compare` call out.
  analyze = {
    source = "stats",         -- "stats": `nsys stats` writes stats/*.csv (the spec); "export": gpuflame writes
                              -- them from trace.sqlite (one `nsys export`; docs/REPORTS.md), like --from-export
    force_export = true,      -- pass --force-export=true (a stale trace.sqlite makes nsys refuse otherwise)
    stats_timeout = 3600,     -- seconds `nsys stats` may run before its process group is killed
    top_ranges = 10,          -- ranges listed by host and by projected-GPU total in `report`
    first_iteration_factor = 1.5, -- report a first-iteration effect when iteration 0 > factor x median of the rest
    high_variance_cv = 0.25,  -- report large variance when stddev/mean exceeds this
    -- the Nsight Systems release (YYYY.R) report parsing is validated against (docs/spec/NVTX_ANALYSIS.md §11):
    -- any other version gets the "has not been validated" warning in analysis.json
    validated_version = "2025.1",
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
    tag_names = { gpu = "nsys-cuda", timeline = "nsys-timeline", stacks = "nsys-stacks", perf = "",
      -- a live session's window (docs/LIVE.md): "<name>:<session>" and "<name>:<window start, ISO 8601>"
      session = "nsys-session", window = "nsys-window" },
    artifacts = {                     -- (file names inside a capture directory: `outputs`)
      -- what `gpuflame timeline` re-renders from (first group whose globs all match)
      timeline_inputs = { { "*.sqlite" }, { "*cuda_api_trace*.csv", "*cuda_gpu_trace*.csv" } },
    },
    retrim_timeout = 300,             -- seconds one re-render of the timeline (oversize step "retrim") may take
  },

  deliver = {
    -- Several sinks may be active: { type = "studio" }, { type = "dir", path = "/srv/{hostname}" },
    -- { type = "http", url = "https://store/{hostname}/{name}", method = "PUT", headers = {...}, artifact = "html" }
    sinks = { { type = "studio" } },
    -- Attempts per delivery; delay before attempt n+1 = min(cap, base * 2^(n-1)) minus up to jitter*100 %.
    -- statuses: HTTP answers worth another attempt ("5xx" = every 5xx); transport failures (DNS, connect,
    -- TLS, timeout, reset) always are. Any other answer moves the item to <spool>/rejected/.
    retry = { count = 4, base = 1, cap = 30, jitter = 0.5, statuses = { "5xx", 408, 429 } },
    -- an http sink that names no method / artifact
    http_sink = { method = "PUT", artifact = "html" },
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
    health_check_timeout = 5,         -- seconds
    history = 1000,                   -- command ids remembered across restarts (dedup)
    stop_grace = 2,                   -- seconds between SIGTERM and SIGKILL when a capture is cancelled
    uploader_timeout = 900,           -- seconds one uploader process (a pass over the due spool items) may run
    keep_captures = 20,               -- capture directories kept in <state_dir>/captures
    default_duration = 60,
    max_duration = 3600,              -- a command asking for more seconds (or for a non-number) is refused
    backends = { "nsys", "perf" },    -- capture backends (backends/<name>.lua on the search path), in order
    remote_workloads = {
      enabled = true,                 -- false: every nsys_workload from the server is refused
      allow_file = "/etc/gpuflame/allowed-workloads", -- exact command lines or globs (* ?), one a line
      allow = {},                     -- more patterns, same syntax
      -- Drop privileges for the workload (nsys itself stays root): run it as this user through
      -- `setpriv --reuid U --regid G --init-groups --` (util-linux). "" runs it as the agent's user.
      run_as = "",
      run_as_group = "",              -- "" = the user's primary group
    },
    -- Windows of running sessions (docs/LIVE.md "The agent"): a command whose nsys_session names a
    -- session (or matches one by service or command) captures it when one of these globs matches.
    remote_sessions = {
      enabled = true,                 -- false: every session target is refused
      allow_names = {},               -- session names (globs * ?); {} = none
      allow_commands = {},            -- session command lines (words joined by spaces; globs)
    },
  },

  backends = {
    -- the child `gpuflame capture` is stopped timeout_margin s after its own nsys timeout
    -- (duration + capture.timeout_extra) would have passed
    nsys = { enabled = true, timeout_margin = 60 },
    -- CPU sampling in parallel with nsys: `perf record -g` → `perf script` → folded (opt-in).
    perf = { enabled = false, frequency = 99, args = { "-a", "-g" }, timeout_extra = 60, script_timeout = 300 },
  },

  -- GPU flamegraph (docs/POLICY.md "flamegraph"): which nsys stats reports feed it, in order, and how
  -- their rows become folded stacks (docs/spec/STUDIO.md §6.4-6.5).
  flamegraph = {
    reports = { "cuda_gpu_kern_sum", "cuda_api_sum" },
    -- `-o` base name of each report's CSV in the capture directory (nsys appends _<report>.csv)
    output_names = { cuda_gpu_kern_sum = "kern", cuda_api_sum = "api" },
    -- the fixed frames above each name
    prefixes = { cuda_gpu_kern_sum = "gpu;nsys;cuda_kernel", cuda_api_sum = "gpu;nsys;cuda_api" },
    other_prefix = "gpu;nsys", -- the frames above the names of a report `prefixes` does not list
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
    -- SQLite exports, reports and captures: one stack per GPU operation, weighted by its GPU time in integer
    -- ns, whose frames are these levels, outermost first (any of process, rank, device, stream, nvtx,
    -- callchain, api, kernel; `--levels`). A level with nothing to show (no NVTX, no backtraces) adds no frame.
    levels = { "process", "nvtx", "api", "kernel" },
    nvtx_startend = true,            -- start/end ranges are NVTX frames too (push/pop ranges always are)
    nolaunch_frame = "[launch not in capture]", -- the frame (under the process) of GPU work without its launch
    speedscope_events = 1000000,     -- the speedscope export's per-stream evented profiles hold at most this
                                     -- many GPU operations (the earliest; 0 = all); the sampled profile has all
    -- SQLite exports with no GPU operation: flat totals by SQL (kernel totals, then CUDA API totals)
    sqlite_sources = { "kernels", "api" },
    -- a sidecar <folded>.json beside gpu.folded with the source report and unit (the folded file itself
    -- stays pure `stack count` lines)
    folded_metadata = true,
    -- pages (not folded files) of more than fold_min_stacks stacks: every frame under fold_share of the
    -- total (whose parent is not) is merged with its small siblings into one "[folded: …]" frame, their
    -- subtrees merged by name; the page's subtitle says how many and how much (0: never)
    fold_share = 0.0001,
    fold_min_stacks = 100000,
    stats_timeout = 120,
    export_timeout = 300,
  },

  -- CPU/GPU timeline (gpuflame timeline, capture --timeline; docs/POLICY.md "timeline").
  timeline = {
    local_max_events = 10000000, -- pages keep every event up to this many; beyond, the longest (the page says so).
                             -- An upload re-renders smaller pages when too big (upload.retrim_events)
    initial_view = "busiest", -- the page opens on: "busiest" (the window with the most GPU work), "nvtx"
                             -- (the first outermost NVTX range) or "full" (the whole capture)
    view_events = 200,       -- "busiest" is as wide as this many median GPU-work events
    preview_min_events = 100000, -- pages with this many events carry a preview of the opening view, drawn
                             -- before the rest of the page has loaded (0: never)
    keep_partners = true,    -- also keep the launch call of every kept kernel/memcpy/memset (CorrID links)
    -- the CPU side imported from SQLite exports (events like the others: they count toward max_events):
    -- OS runtime calls (OSRT_API) on their thread's lane, CPU samples (COMPOSITE_EVENTS, stacks from
    -- SAMPLING_CALLCHAINS) as a samples row under the thread, running intervals (SCHED_EVENTS) as a running row
    -- max_samples: at most this many samples per export, evenly spread (the page says how many of how many;
    -- 0 = all); a long capture samples millions, and the page would be mostly samples
    cpu = { osrt = true, samples = true, running = true, max_samples = 200000 },
    compress = true,         -- event columns raw-DEFLATE compressed in the page (about half the bytes, and the
                             -- bytes are most of the opening time); false for browsers without DecompressionStream
    source = "csv",          -- capture --timeline reads the stats trace CSVs ("csv", the reference) or
                             -- the SQLite export ("sqlite"); .sqlite/.nsys-rep inputs always use SQLite
    -- source "csv": the nsys stats reports asked for, and the `-o` base of each one's CSV
    reports = { "cuda_api_trace", "cuda_gpu_trace" },
    output_names = { cuda_api_trace = "api_trace", cuda_gpu_trace = "gpu_trace" },
    fallback = "flamegraph", -- no trace events: "flamegraph" (with a warning) or "none" (exit 5)
    title = "nsys CPU/GPU timeline",
    template = "templates/timeline.html",
    -- launch-stack flamegraph in the page: subtrees lighter than this share of the total are folded into
    -- their parent (they would be < 0.2 px wide); the launch-stacks exporter always writes everything
    flame_min_fraction = 0.0001,
    -- NVTX ranges projected onto the GPU (nsys's nvtx_gpu_proj_trace: first to last GPU op launched inside
    -- the range) drawn as rows under each device, and written by the chrome-trace exporter (SQLite inputs)
    nvtx_projection = true,
    -- thresholds of the bundled scripts (HTA's): launch-stats and gpu-idle
    late_launch_ns = 100000, -- launch delay (kernel start - API end) flagged above this
    short_gap_ns = 30000,    -- GPU idle gaps shorter than this count as kernel wait
  },

  -- Several reports, one model (timeline/flamegraph/export/run with several INPUTs; docs/TIMELINE_DATA.md).
  -- A rank is a (report, process) pair.
  ranks = {
    -- rank label: the first of these variables in the report's captured environment (META_DATA_CAPTURE),
    -- formatted with label_format; else the two below; else "<host> pid <pid>". Colliding labels get the
    -- report's file name.
    label_env = { "RANK", "OMPI_COMM_WORLD_RANK", "LOCAL_RANK" },
    -- then (docs/SEMANTICS.md "Rank names") a thread name (nsys's MPI tracing names rank N's main thread
    -- `MPI Rank N`), then an NVTX range or mark of the process: Lua patterns whose first capture is the rank
    thread_rank_patterns = { "^MPI Rank (%d+)$" },
    marker_rank_patterns = { "^NCCL rank (%d+)", "^NVSHMEM PE (%d+)" },
    label_format = "rank %s",
    nccl_prefixes = { "nccl", "void nccl" },      -- kernels counted as NCCL time (name prefix)
    iteration_prefixes = { "step", "iteration", "iter", "train_step", "ProfilerStep" }, -- NVTX iteration ranges
    -- rank-skew (docs/SEMANTICS.md "Stragglers and the noise floor"): a rank's lag behind the median of the other
    -- ranks makes it a straggler only above all of: this share of that median, noise_floor_ns, noise_floor_share
    -- of the job's GPU span (or of the iteration's median duration), and straggler_mad_k × 1.4826 × their MAD
    straggler_threshold = 0.05,
    noise_floor_ns = 50000,
    noise_floor_share = 0.01,
    straggler_mad_k = 3,
    workers = 0,                -- worker processes importing reports at once (0 = one per CPU, or 1 per MPI rank
                                -- under gpuflame-mpi with several ranks; 1 = in this process)
    -- inputs that cannot be one job are refused (exit 6) unless --allow-unrelated: captures whose session
    -- starts are further apart than this (seconds), and with single_node, captures of different hosts
    max_start_gap_s = 3600,
    single_node = false,
  },

  -- Steps: the iterations of a training or benchmark loop found in a capture (`gpuflame steps`, `--step` of
  -- collapse, flamegraph and diff; docs/SEMANTICS.md "Steps", docs/STEPS.md).
  steps = {
    -- NVTX ranges that are steps, in order of preference: Lua patterns over the range's text (anchored;
    -- %d+ the step number). The first marker that matches at least min_repeats ranges of one thread wins;
    -- without one, the fallback: the range name (digits as N) of the main thread (default NVTX domain)
    -- that repeats at least min_repeats times at the outermost level where one does (at most
    -- fallback_depth levels down), covering the most time.
    markers = {
      { pattern = "^ProfilerStep#%d+$", convention = "PyTorch profiler (ProfilerStep#N)" },
      { pattern = "^[Ss]tep[ _#:%-]*%d+$", convention = "step N" },
      { pattern = "^[Ii]teration[ _#:%-]*%d+$", convention = "iteration N" },
      { pattern = "^[Ii]ter[ _#:%-]*%d+$", convention = "iter N" },
      { pattern = "^[Ww]arm%-?up [Ss]tep[ _#:%-]*%d+$", convention = "Warm-up Step N" },
      { pattern = "^[Tt]rain[ _][Ss]tep[ _#:%-]*%d+$", convention = "train step N" },
      { pattern = "^[Bb]atch[ _#:%-]*%d+$", convention = "batch N" },
      { pattern = "^train_step$", convention = "train_step (Megatron-LM, JAX/Flax loops)" },
      { pattern = "^training_step$", convention = "training_step (Lightning, NeMo)" },
      { pattern = "^%[%w+%][%w_]*%.training_step$", convention = "[Strategy]….training_step (Lightning profiler)" },
      { pattern = "^run_training_batch$", convention = "run_training_batch (Lightning)" },
      { pattern = "^[%w_]*Engine%.train_batch$", convention = "Engine.train_batch (DeepSpeed)" },
      { pattern = "^accelerate[%.:_ ][Ss]tep[ _#:%-]*%d+$", convention = "accelerate step N (Hugging Face Accelerate)" },
    },
    min_repeats = 3,    -- a marker or the fallback needs this many ranges of one thread
    fallback_depth = 4, -- the fallback looks this many nesting levels down (0: top-level ranges only)
    -- warm-up steps, flagged and left out of the summary: names matching one of these Lua patterns, and the
    -- first warmup_steps steps of each process
    warmup_patterns = { "[Ww]arm%-?[Uu]p" },
    warmup_steps = 1,
    -- outliers: steps whose time (their duration, or their busiest GPU's work when longer) is more than
    -- outlier_mad scaled MADs (1.4826 x the median absolute deviation) and more than outlier_min_share of the
    -- median away from the median (warm-up steps excluded)
    outlier_mad = 3,
    outlier_min_share = 0.1,
    -- drift: with at least drift_min_steps counted steps, the last third's median time against the first
    -- third's; the loop drifts when they differ by drift_min_share of the first's and, in at least
    -- drift_agreement of the (first-third, last-third) pairs of steps, the later step is the slower (or the
    -- faster) one (docs/SEMANTICS.md "Steps")
    drift_min_steps = 9,
    drift_min_share = 0.1,
    drift_agreement = 0.75,
    -- between steps: when the gaps between the steps (a step's end to the next step's start) hold at least this
    -- share of the loop, the summary says that the steps' times leave out most of it (docs/SEMANTICS.md)
    between_share = 0.5,
    top = 5,            -- top kernels and NVTX ranges listed per step (and in the gaps between steps)
    -- the text table's rows: every step when there are at most this many, else the first and last steps, the
    -- slowest and the outliers furthest from the median, this many in all (`steps --all`, --json, --html: every one)
    text_rows = 60,
  },

  -- The critical path of a step (`gpuflame critical-path`, docs/SEMANTICS.md "Critical path", docs/CRITICAL_PATH.md).
  critical_path = {
    -- blocking calls (SQLite LIKE patterns over the calls' display names, case-insensitive): the host waits in
    -- them for GPU work, so their end waits for the GPU work that ended last before they returned
    blocking = { "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
      "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
      "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize", "cuMemcpyDtoH%",
      "cuMemcpyHtoD%", "cuMemcpyDtoD%" },
    -- calls recording a CUDA event, and calls making a stream wait for one (LIKE patterns): the export names
    -- neither stream, so the edge runs from the GPU work the thread launched last before the record to the
    -- first GPU work it launches on another stream after the wait
    event_record = { "cudaEventRecord%", "cuEventRecord%" },
    stream_wait = { "cudaStreamWaitEvent%", "cuStreamWaitEvent%" },
    top = 10, -- items of the path listed per step in the text output, and in the run's summary (text and page;
              -- the JSON lists them all)
  },

  -- The time breakdown of a GPU (docs/SEMANTICS.md): gpu-busy, gpu-idle, rank-skew, report, summary.json.
  gpu_time = {
    -- kernels that are communication (SQLite LIKE patterns, case-insensitive); every other kernel is compute
    communication = { "%nccl%", "%nvshmem%", "%allreduce%", "%all_reduce%", "%allgather%", "%all_gather%",
      "%reducescatter%", "%reduce_scatter%", "%alltoall%", "%all_to_all%" },
  },

  -- Findings (`gpuflame findings`, docs/RULES.md): which rules run when no -r is given, in this order,
  -- and their options (thresholds). A rule's own defaults apply to options not listed here; -r
  -- RULE:key=value wins over both. The six nsys rules keep nsys analyze's defaults so that their rows
  -- equal `nsys analyze`'s.
  findings = {
    rules = { "cuda-async-memcpy", "cuda-sync-memcpy", "cuda-sync-memset", "cuda-sync-api", "gpu-starv",
      "gpu-low-util", "launch-overhead", "cuda-graphs", "gpu-busy", "nccl-wait" },
    rule_budget = 120,        -- seconds of Lua a rule may run before it is stopped (reported as failed)
    capture = "exported",     -- `capture` writes findings.json: "exported" when it made the SQLite export
                              -- (--stacks, timeline.source "sqlite"), "always" (exports when needed), "never"
    capture_top = 3,          -- ... and prints this many findings (warnings first, the most time at stake first)
    pages = true,             -- timeline and flamegraph pages (and capture's timeline) carry a findings panel
                              -- (these rules over the whole trace; the page still keeps timeline.max_events)
    options = {
      ["cuda-sync-memcpy"] = { small_h2d_bytes = 64000 }, -- host-to-device copies up to this size are not flagged
      ["gpu-starv"] = { gap = 500 },                    -- ms of GPU idle time
      ["gpu-low-util"] = { threshold = 50, chunks = 30 }, -- percent in-use, chunks per (process, device) span
      -- a storm needs min_kernels kernels of one name; the diagnosis (docs/SEMANTICS.md): queue-bound when the
      -- median queue delay >= queue_factor x the mean launch call on devices busy >= busy %; launch-bound when
      -- shorter, the streams wait on launches >= wait_share % of their time, waits <= gap_factor x a launch call
      ["launch-overhead"] = { min_kernels = 100, rows = 20, queue_factor = 10, busy = 50, wait_share = 20,
        gap_factor = 4 },
      ["gpu-busy"] = { denominator = "span", low = 50 }, -- "span" (device) or "capture"; warn below low %
      ["nccl-wait"] = { names = { "%nccl%" }, high_share = 30 }, -- kernel name patterns; warn at this share %
    },
  },

  -- Launch backtraces (capture --stacks; flags in capture.stacks).
  stacks = {
    missing = "warn",        -- no CUDA_CALLCHAINS rows: "warn" (timeline without stacks) or "error" (exit 5)
  },

  -- NVTX range names as gpuflame's own views show them (docs/POLICY.md "nvtx"; never `stats`): named rule
  -- sets applied in the order of their names, each an ordered list of {Lua pattern, replacement} given to
  -- string.gsub. A fleet adds a set under a name of its own (`nvtx = { group = { ["50-mine"] = {...} } }`
  -- merges with these) or turns one off with an empty list.
  nvtx = {
    group = {
      -- PyTorch's torch.autograd.profiler.emit_nvtx: "aten::view, seq = 12, op_id = 314290, sizes = [[2, 3]],
      -- input_op_ids = [(1, 0)]" -> "aten::view" (its suffixes come in this order; sizes and input_op_ids last)
      ["10-pytorch-emit_nvtx"] = {
        { ", sizes = %[.*$", "" },
        { ", input_op_ids = %[.*$", "" },
        { ", op_id = %d+$", "" },
        { ", seq = %-?%d+$", "" },
      },
    },
    raw_examples = 3,   -- a grouped frame's tooltip / panel lists at most this many of the raw names it merges
  },

  -- gpuflame diff BEFORE AFTER (docs/DIFF.md): the regression verdict and how kernels are matched.
  diff = {
    threshold = 0.05,        -- regression when total GPU time grows by more than this (5%)
    kernel_threshold = 0.20, -- ... or a kernel among the top_kernels grows by more than this (20%)
    notes_when_faster = true, -- ... unless the total fell by more than threshold: then that is a note, not a
                              -- regression (an optimisation's kernel swap); false: a regression all the same
    top_kernels = 10,        -- the largest kernels by max(BEFORE, AFTER) total time; a new one there counts
    loop_threshold = 0.10,   -- ... or, both captures having steps, the loop's mean iteration grows by more than
                             -- this (10%; docs/DIFF.md "The loop"): the same GPU work, slower per iteration
    loop_min_iterations = 5, -- ... over at least this many iterations on each side
    -- verdict = function(d) return d.total.change ~= nil and d.total.change > 0.10 end,
    -- normalize_name: none, kernels match by their demangled name exactly. Looser matching, e.g.
    --   normalize_name = require("gpuflame.kernelnames").standard  (template args, _<N>, anonymous ns)
    duration_tolerance = 0.10, -- capture lengths differing by more than 10% are called out as unfair
    min_fraction = 0,        -- page: leave out flame subtrees below this share of both totals (0 = keep all)
    group_by = "kernel",     -- the ranked table's rows: "kernel" (the stacks' leaves) or "nvtx" (NVTX ranges; `--group-by`)
    title = "GPU time diff",
    -- A process is known by what it is, not its pid, so two runs of one program line up (docs/DIFF.md):
    -- "auto" its rank when the capture gives one (ranks.label_env, ranks.thread_rank_patterns), else
    -- its executable (processes of one capture sharing it told apart by their command line's hash);
    -- "executable"; "command" (executable + command-line hash); "pid" (the process frames of before:
    -- "<name> [<pid>]"); or function(p) → key, p = {pid=, rank=, executable=, thread=, args_hash=}.
    -- Also names the process frames of multi-report flamegraphs.
    process_key = "auto",
    -- Comparable or not (docs/DIFF.md): the work of the two captures compared before the verdict; a
    -- difference beyond these makes the verdict "not comparable" (exit 11).
    work = {
      bytes_tolerance = 0.10,     -- bytes per copy direction (and set by memsets) differ by more than 10%
      instances_tolerance = 0.25, -- instances of a kernel found on both sides
      launch_tolerance = 0.25,    -- its mean blocks per instance or threads per block
      nvtx_tolerance = 0.25,      -- ranges of an NVTX name found on both sides
      min_share = 0.02,           -- kernels: at least this share of each side's kernel time (smaller
                                  -- ones, and kernels an optimisation swapped, say nothing of the input);
                                  -- copy directions: of either side's bytes
      nvtx_depth = 0,             -- NVTX push/pop ranges nested at most this deep (0: outermost only)
      nvtx_fold_numbers = true,   -- "step 12" and "step 13" count as one name, "step #"
    },
  },

  -- File names gpuflame writes: inside a capture directory (capture, the agent's backends; `upload` looks
  -- for the same names), and the default -o of `flamegraph`, `timeline` and `report --html`.
  outputs = {
    summary = "summary.json",          -- what the capture did: commands, exit codes, artifacts, warnings
    profile_log = "nsys-profile.log",  -- nsys profile's output (tail, secrets redacted)
    sqlite = "capture.sqlite",         -- nsys export --type sqlite (capture --stacks / timeline.source "sqlite")
    flamegraph = "flamegraph.html",
    gpu_folded = "gpu.folded",
    timeline = "timeline.html",
    launch_folded = "launch-stacks.folded",
    cpu_folded = "cpu.folded",         -- the perf backend's folded CPU stacks
    nsys_backend_log = "nsys-backend.log", -- agent: the child `gpuflame capture`'s output
    perf_backend_log = "perf-backend.log",
    perf_data = "perf.data",
    perf_script = "perf.script",
    report = "report.html",            -- `gpuflame report --html`, beside analysis.json
    findings = "findings.json",        -- capture's findings (policy findings.capture); `report` reads it
                                       -- beside analysis.json
    analysis = "analysis.json",        -- `analyze`'s result in the run directory (docs/spec/NVTX_ANALYSIS.md's
                                       -- name); `report`, `compare` and `diff` look for it there
    diff = "diff.html",                -- `gpuflame diff` page when -o is not given
    steps = "steps.json",              -- `analyze --from-export` without a manifest: the steps document
  },

  -- `gpuflame mcp`, the Model Context Protocol server (docs/MCP.md): what its tools may read, run and return.
  mcp = {
    max_request_bytes = 1048576,  -- a request line longer than this is refused (JSON-RPC error), not read
    max_result_bytes = 262144,    -- a tool result's JSON over this is cut (lists shortened, a note says so)
    page_size = 50,               -- rows per page of the list tools when the request gives no limit
    max_page_size = 1000,         -- the largest `limit` a request may ask for
    export_reports = true,        -- .nsys-rep/.qdrep inputs may be exported through nsys (the export cache)
    run_programs = false,         -- true: tools may run other programs (captures, workloads); none bundled does
  },

  limits = {
    function_budget = 10, -- seconds any policy function may run before it is stopped
    -- threads one command may use at once: the SQLite import steps rows on a second thread, the timeline
    -- computes the NVTX projection beside the rules and compresses its columns in parallel, the flamegraph
    -- builds its stacks beside its findings panel's rules and sorts a page's fold in two halves (0 = one per
    -- CPU; 1 = everything on one thread, e.g. an agent that must not take a second core from a training job)
    threads = 0,
    -- transparent huge pages for the heap and the large columns (core/host/hugepages.c, docs/LIMITS.md): before
    -- one of these commands runs on inputs of at least min_input_bytes (the files on its command line, a
    -- directory's own files included), gpuflame re-executes itself with glibc.malloc.hugetlb=1 (where THP is in
    -- madvise mode; GPUFLAME_HUGEPAGES=0 never) and offers its large columns huge pages too. None by default: on
    -- a VM whose balloon driver gives freed memory back to its host, a fresh huge page costs several times what
    -- 4 KiB pages cost (2026-12-07: `timeline` of a 368 MB export 1.41-1.51x SQLite's scan without, 1.73-1.89x
    -- with; 2026-12-04, on a host that did not: 13-18 % faster with). A fleet on bare metal may list e.g.
    -- { "timeline", "findings", "flamegraph", "collapse" }; the exec costs ~3 ms of CPU.
    huge_pages = {
      commands = {},
      min_input_bytes = 64 * 1024 * 1024,
    },
    -- freed memory kept in the heap for later blocks (core/mem.h gf_mem_keep_freed, docs/LIMITS.md) by these
    -- commands on inputs of at least min_input_bytes: the flamegraph's stacks reuse the pages its import freed
    -- instead of fresh ones the kernel zeroes (issue 42: ~5 % of its CPU), for a higher peak where freed
    -- blocks fit no later one (+13 % on a 368 MB export). Not the timeline: its 5M-event page peaked 29 % higher.
    keep_freed_memory = {
      commands = { "flamegraph", "collapse" },
      min_input_bytes = 64 * 1024 * 1024,
    },
  },
}
