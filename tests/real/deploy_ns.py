"""Reads docs/deploy/gpuflame-agent.service or docs/deploy/daemonset.yaml and writes the bash script that
starts the agent the way systemd or the kubelet would, as closely as one host without either allows
(tests/real/test_real_deploy_live.sh runs it under `unshare -m --propagation private`):

  unit: ExecStart= (${VAR} expanded), User=, Environment=, the environment systemd gives a service (PATH,
        HOME, USER, LOGNAME, SHELL, CREDENTIALS_DIRECTORY, STATE_DIRECTORY, RUNTIME_DIRECTORY), LoadCredential=
        (a private tmpfs), StateDirectory=/RuntimeDirectory= (+Mode: created by the test, checked here),
        PrivateTmp= (a fresh /tmp and /var/tmp), ProtectHome=read-only (/home, /root, /run/user read-only);
  pod:  command + args, env (value, secretKeyRef, fieldRef), the container's filesystem: its own /tmp,
        /var/tmp, /run and /dev/shm, with only the pod's volumeMounts of the host's paths bound in;
        hostPID (the caller adds a pid namespace when it is false).

Usage: deploy_ns.py unit|ds FILE WORK JSON  → the script on stdout, a summary (JSON) in WORK/plan.json.
JSON (the test's stand-ins): {"gf": built binary, "url": Studio stand-in, "token": ..., "interval": s,
"policy": path inserted as `--policy P` before `agent` (an operator's choice: remote sessions are off by
default), "hostpaths": {host path: path used instead, for paths a test must not touch}}.
The agent's binary (/usr/local/bin/gpuflame: the image's, or installed) is the built one, through an
overlay of its directory; files the test writes under WORK/etc (agent.conf, the token, the allow-lists,
the policy) appear under /etc through an overlay of /etc. Nothing outside the namespace is changed."""
import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import yaml_subset  # noqa: E402

SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def q(s):
    return shlex.quote(str(s))


def read_unit(path):
    svc = {}
    cur = None
    for line in open(path):
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        if s.startswith("[") and s.endswith("]"):
            cur = s[1:-1]
            continue
        k, v = s.split("=", 1)
        if cur == "Service":
            svc.setdefault(k.strip(), []).append(v.strip())
    return svc


def yes(v):
    return v in ("1", "yes", "true", "on")


def overlay(lines, work, target, name):
    up, wk = f"{work}/ov/{name}-up", f"{work}/ov/{name}-work"
    lines.append(f"mkdir -p {q(up)} {q(wk)}")
    return up, f"mount -t overlay overlay -o lowerdir={target},upperdir={up},workdir={wk} {target}"


def common_head(work, st):
    lines = ["set -e"]
    up, m = overlay(lines, work, "/usr/local/bin", "ulb")
    lines += [f"cp {q(st['gf'])} {q(up)}/gpuflame", m]
    up, m = overlay(lines, work, "/etc", "etc")
    lines += [f"cp -a {q(work)}/etc/. {q(up)}/", "mkdir -p " + q(up) + "/.gf-stage", m]
    # a staging tmpfs for what must stay reachable after /tmp, /run or /dev/shm are replaced
    lines.append("mount -t tmpfs -o mode=0700 tmpfs /etc/.gf-stage")
    return lines


def unit_script(path, work, st):
    svc = read_unit(path)
    plan = {"kind": "unit"}
    lines = common_head(work, st)
    env = {"PATH": SYSTEMD_PATH, "LANG": "C.UTF-8"}
    user = svc.get("User", ["root"])[-1]
    env.update({"USER": user, "LOGNAME": user, "HOME": "/root" if user == "root" else "/",
                "SHELL": "/bin/sh", "INVOCATION_ID": "0" * 32})
    creds = [c.split(":", 1) for c in svc.get("LoadCredential", [])]
    if creds:
        cd = "/etc/.gf-stage/credentials/gpuflame-agent.service"
        lines.append(f"mkdir -p {cd} && chmod 0700 {cd}")
        for name, src in creds:
            # the source is read before the namespace hides anything: the test's stand-in of it
            lines.append(f"install -m 0400 {q(work + '/etc' + src[len('/etc'):])} {cd}/{name}"
                         if src.startswith("/etc/") else f"install -m 0400 {q(src)} {cd}/{name}")
        env["CREDENTIALS_DIRECTORY"] = cd
    for key, base, var in (("StateDirectory", "/var/lib", "STATE_DIRECTORY"),
                           ("RuntimeDirectory", "/run", "RUNTIME_DIRECTORY")):
        dirs = [base + "/" + d for v in svc.get(key, []) for d in v.split()]
        if dirs:
            env[var] = ":".join(dirs)
            mode = svc.get(key + "Mode", ["0755"])[-1]
            plan.setdefault("dirs", []).extend([[d, mode] for d in dirs])
            for d in dirs:  # systemd creates them (the test did, on the host); checked here
                lines.append(f"test -d {d} || {{ echo 'deploy_ns: {d} ({key}=) missing' >&2; exit 97; }}")
    for v in svc.get("Environment", []):
        for kv in shlex.split(v):
            k, val = kv.split("=", 1)
            env[k] = val
    plan["private_tmp"] = yes(svc.get("PrivateTmp", ["no"])[-1])
    if plan["private_tmp"]:
        lines += ["mount -t tmpfs -o mode=1777 tmpfs /tmp", "mount -t tmpfs -o mode=1777 tmpfs /var/tmp"]
    ph = svc.get("ProtectHome", ["no"])[-1]
    plan["protect_home"] = ph
    if ph == "read-only" or yes(ph):
        for d in ("/home", "/root", "/run/user"):
            lines.append(f"if [ -d {d} ]; then mount --bind {d} {d}; mount -o remount,bind,ro {d}; fi")
    argv = shlex.split(svc["ExecStart"][-1].lstrip("-@+!:"))
    argv = [re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), ""), a) for a in argv]
    plan["argv"] = list(argv)
    argv = insert_policy(replace_flag(argv, "--interval", st["interval"]), st)
    plan["user"] = user
    run = ["env", "-i"] + [f"{k}={v}" for k, v in sorted(env.items())] + argv
    if user != "root":
        run = ["setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups"] + run
    plan["env"] = sorted(env)
    lines.append("exec " + " ".join(q(a) for a in run))
    return lines, plan


def replace_flag(argv, flag, value):
    out = list(argv)
    if flag in out:
        out[out.index(flag) + 1] = str(value)
    return out


def insert_policy(argv, st):
    return argv[:1] + (["--policy", st["policy"]] if st.get("policy") else []) + argv[1:]


def ds_script(path, work, st):
    docs = yaml_subset.parse_documents(open(path).read())
    ds = [d for d in docs if d.get("kind") == "DaemonSet"][0]
    cms = {d["metadata"]["name"]: d.get("data", {}) for d in docs if d.get("kind") == "ConfigMap"}
    pod = ds["spec"]["template"]["spec"]
    c = pod["containers"][0]
    plan = {"kind": "ds", "host_pid": pod.get("hostPID") is True}
    lines = common_head(work, st)
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = []
    for i, m in enumerate(c.get("volumeMounts", [])):
        v = vols[m["name"]]
        if "hostPath" in v:
            hp = v["hostPath"]["path"]
            src = st.get("hostpaths", {}).get(hp, hp)
            if not os.path.exists(src):
                if v["hostPath"].get("type") == "DirectoryOrCreate":
                    lines.append(f"mkdir -p -m 0755 {q(src)}")  # the kubelet creates it (0755)
                else:
                    plan.setdefault("absent", []).append(hp)  # the kubelet would refuse the pod
                    continue
            stage = f"/etc/.gf-stage/v{i}"
            lines += [f"mkdir -p {stage}", f"mount --bind {q(src)} {stage}"]
            mounts.append((stage, m["mountPath"], m.get("readOnly") is True, "dir"))
        elif "configMap" in v:
            data = cms[v["configMap"]["name"]]
            if "subPath" in m:
                f = f"/etc/.gf-stage/v{i}"
                lines.append(f"printf %s {q(data[m['subPath']])} >{f}")
                mounts.append((f, m["mountPath"], True, "file"))
    plan["mounts"] = [m[1] for m in mounts]
    # the container's own /tmp, /var/tmp, /run, /dev/shm (not the host's)
    lines += ["mount -t tmpfs -o mode=1777 tmpfs /tmp", "mount -t tmpfs -o mode=1777 tmpfs /var/tmp",
              "mount -t tmpfs -o mode=0755 tmpfs /run", "mount -t tmpfs -o mode=1777 tmpfs /dev/shm"]
    for src, dst, ro, kind in mounts:
        lines.append((f"mkdir -p {q(dst)}" if kind == "dir" else
                      f"mkdir -p {q(os.path.dirname(dst))}; touch {q(dst)}") + f"; mount --bind {src} {q(dst)}")
        if ro:
            lines.append(f"mount -o remount,bind,ro {q(dst)}")
    env = {"PATH": SYSTEMD_PATH, "HOME": "/root", "HOSTNAME": "gpuflame-agent-test"}
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = str(e["value"])
            continue
        vf = e.get("valueFrom", {})
        if "secretKeyRef" in vf:
            env[e["name"]] = st["token"]
        elif "fieldRef" in vf:
            env[e["name"]] = {"spec.nodeName": "deploy-node", "metadata.name": "gpuflame-agent-test",
                              "metadata.namespace": "gpuflame"}.get(vf["fieldRef"]["fieldPath"], "")
    argv = list(c.get("command", [])) + [str(a) for a in c.get("args", [])]
    plan["argv"] = list(argv)
    argv = insert_policy(replace_flag(replace_flag(argv, "--interval", st["interval"]), "--server", st["url"]), st)
    plan["env"] = sorted(env)
    lines.append("exec " + " ".join(q(a) for a in ["env", "-i"] + [f"{k}={v}" for k, v in sorted(env.items())] + argv))
    return lines, plan


def main():
    kind, path, work, st = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    lines, plan = (unit_script if kind == "unit" else ds_script)(path, work, st)
    json.dump(plan, open(os.path.join(work, "plan.json"), "w"))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
