#!/usr/bin/env bash
# docs/deploy/gpuflame-agent.service and docs/deploy/daemonset.yaml: parsed (python3 stdlib: a
# systemd unit reader and tests/lib/yaml_subset.py), checked for what a GPU fleet needs (privileged,
# host PID namespace, the host's nsys read-only, token from a Secret / credential and never in argv,
# spool on a host path), and their agent command lines checked against `gpuflame agent --help` —
# then actually started with those flags (paths redirected into the test's temp dir).
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/studio.sh"

UNIT=$TOP/docs/deploy/gpuflame-agent.service
DS=$TOP/docs/deploy/daemonset.yaml
run_gf agent --help
check_eq "agent --help exits 0" 0 "$rc"
printf '%s\n' "$out" >"$TMP/help.txt"

python3 - "$UNIT" "$DS" "$TMP/help.txt" "$TOP/tests/lib" >"$TMP/checks.txt" 2>&1 <<'PY'
import json, re, shlex, sys
unit_path, ds_path, help_path, lib = sys.argv[1:5]
sys.path.insert(0, lib)
import yaml_subset

def check(name, cond, why=""):
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else ": " + why))

# flags the agent really has, and which take a value
flags = {}
for line in open(help_path):
    m = re.match(r"\s+(?:-\w, )?--([\w-]+)(?: ([A-Z]+))?", line)
    if m:
        flags[m.group(1)] = m.group(2) is not None
check("help lists --server, --service, --state-dir, --interval, --token-file",
      all(f in flags for f in ("server", "service", "state-dir", "interval", "token-file")), str(sorted(flags)))

def check_argv(what, argv):
    check(what + ": runs `gpuflame agent`", len(argv) > 1 and argv[0].endswith("/gpuflame") and argv[1] == "agent", str(argv))
    i = 2
    seen = []
    while i < len(argv):
        a = argv[i]
        if not a.startswith("--"):
            check(what + ": argument " + a + " belongs to a flag", False, str(argv)); return
        name = a[2:].split("=", 1)[0]
        check(what + ": --" + name + " is a real agent flag", name in flags, "not in `agent --help`")
        if flags.get(name) and "=" not in a:
            check(what + ": --" + name + " has its value", i + 1 < len(argv) and not argv[i + 1].startswith("--"), str(argv))
            i += 1
        seen.append(name)
        i += 1
    check(what + ": no --token on the command line (visible in ps)", "token" not in seen)
    return seen

# --- systemd unit: sections, key=value, repeated keys allowed
sections, cur = {}, None
for n, line in enumerate(open(unit_path), 1):
    s = line.strip()
    if not s or s[0] in "#;":
        continue
    if s.startswith("[") and s.endswith("]"):
        cur = sections.setdefault(s[1:-1], {})
        continue
    if "=" not in s or cur is None:
        check(f"unit line {n} parses", False, s); continue
    k, v = s.split("=", 1)
    cur.setdefault(k.strip(), []).append(v.strip())
check("unit has [Unit], [Service], [Install]", {"Unit", "Service", "Install"} <= set(sections), str(sections.keys()))
svc = sections.get("Service", {})
exec_start = shlex.split(svc["ExecStart"][0])
seen = check_argv("unit ExecStart", exec_start)
check("unit: token from a systemd credential file", "token-file" in seen and any(v.startswith("token:") for v in svc.get("LoadCredential", [])))
sd = exec_start[exec_start.index("--state-dir") + 1]
check("unit: --state-dir is the StateDirectory", sd == "/var/lib/" + svc.get("StateDirectory", ["?"])[0], sd)
check("unit: SIGHUP reload", svc.get("ExecReload", [""])[0].startswith("/bin/kill -HUP"))
check("unit: SIGTERM stop", svc.get("KillSignal", [""])[0] == "SIGTERM")
check("unit: restarts", svc.get("Restart", [""])[0] == "always")
check("unit: wanted by multi-user", sections.get("Install", {}).get("WantedBy") == ["multi-user.target"])
with open(sys.argv[3] + ".unit-argv", "w") as f:
    json.dump(exec_start, f)

# --- DaemonSet
docs = yaml_subset.parse_documents(open(ds_path).read())
ds = [d for d in docs if d.get("kind") == "DaemonSet"]
check("manifest has one DaemonSet", len(ds) == 1)
ds = ds[0]
pod = ds["spec"]["template"]["spec"]
check("selector matches the template labels",
      ds["spec"]["selector"]["matchLabels"].items() <= ds["spec"]["template"]["metadata"]["labels"].items())
check("hostPID: true", pod.get("hostPID") is True)
check("scheduled on GPU nodes", "nvidia.com/gpu.present" in pod.get("nodeSelector", {}))
c = pod["containers"][0]
check("privileged container", c.get("securityContext", {}).get("privileged") is True)
seen = check_argv("DaemonSet command", c["command"])
env = {e["name"]: e for e in c.get("env", [])}
tok = env.get("GPUFLAME_TOKEN", {})
check("token from a Secret through the environment", "secretKeyRef" in tok.get("valueFrom", {}) and "value" not in tok)
check("hostname is the node's name", env.get("GPUFLAME_HOSTNAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName")
vols = {v["name"]: v for v in pod["volumes"]}
mounts = {m["name"]: m for m in c["volumeMounts"]}
nsys = [n for n, v in vols.items() if v.get("hostPath", {}).get("path") == "/opt/nvidia"]
check("the host's /opt/nvidia (nsys) is a hostPath volume", len(nsys) == 1)
check("... mounted read-only", nsys and mounts[nsys[0]].get("readOnly") is True)
state_dir = c["command"][c["command"].index("--state-dir") + 1]
state = [n for n, m in mounts.items() if m["mountPath"] == state_dir]
check("--state-dir (spool) is a mount", len(state) == 1, state_dir)
check("... backed by a hostPath, so spooled captures survive pod restarts",
      state and "hostPath" in vols[state[0]] and vols[state[0]]["hostPath"]["type"] == "DirectoryOrCreate")
check("... writable", state and not mounts[state[0]].get("readOnly"))
cm = [d for d in docs if d.get("kind") == "ConfigMap"]
check("allow-list ConfigMap mounted at the policy's allow_file",
      cm and any(m["mountPath"] == "/etc/gpuflame/allowed-workloads" for m in mounts.values()))
with open(sys.argv[3] + ".ds-argv", "w") as f:
    json.dump(c["command"], f)
PY
cat "$TMP/checks.txt"
grep -q '^not ok' "$TMP/checks.txt" && _t_failed=$((_t_failed + 1))
grep -q '^ok - manifest has one DaemonSet' "$TMP/checks.txt" || not_ok "deploy checks ran" "python parse failed"

# --- the parser is strict: unsupported YAML is an error naming the line -----------------------------
printf 'a: &x 1\nb: *x\n' >"$TMP/bad.yaml"
msg=$(python3 "$TOP/tests/lib/yaml_subset.py" "$TMP/bad.yaml" 2>&1)
check_contains "subset parser refuses anchors with the line" "$msg" "line 1: anchors"

# --- start the agent with both command lines (paths redirected, a stand-in server) --------------------
TOKEN="dep-$(date +%s%N)"
studio_start "$TMP/srv" --token "$TOKEN"
printf '%s\n' "$TOKEN" >"$TMP/token"; chmod 600 "$TMP/token"
printf 'server = %s\nservice = deploy-test\n' "$STUDIO_URL" >"$TMP/agent.conf"
for which in unit ds; do
  mapfile -t argv < <(python3 - "$TMP/help.txt.$which-argv" "$GF" "$TMP" "$STUDIO_URL" <<'PY'
import json, sys
argv = json.load(open(sys.argv[1]))
gf, tmp, url = sys.argv[2:5]
out = [gf]
i = 1
while i < len(argv):
    a = argv[i]
    if a == "--config": out += [a, tmp + "/agent.conf"]; i += 2; continue
    if a == "--token-file": out += [a, tmp + "/token"]; i += 2; continue
    if a == "--state-dir": out += [a, tmp + "/state-" + str(len(out))]; i += 2; continue
    if a == "--server": out += [a, url]; i += 2; continue
    if a == "--interval": out += [a, "0.3"]; i += 2; continue
    out.append(a); i += 1
print("\n".join(out))
PY
)
  if [ "$which" = ds ]; then export GPUFLAME_TOKEN=$TOKEN; else unset GPUFLAME_TOKEN; fi
  "${argv[@]}" >"$TMP/$which.log" 2>&1 &
  pid=$!
  for i in $(seq 1 50); do
    [ "$(studio_q "sum(1 for r in recs if r['path'] == '/api/metrics/heartbeat')")" -ge 2 ] && break
    sleep 0.2
  done
  kill -TERM "$pid"; wait "$pid"; arc=$?
  check_eq "$which command line: the agent starts, heartbeats and stops with exit 0" 0 "$arc"
  check_contains "$which command line: heartbeat accepted" "$(studio_q "[r['status'] for r in recs if r['path'] == '/api/metrics/heartbeat'][-1]")" "200"
  rm -rf "$TMP/srv/log"
done
studio_stop
t_done
