-- bench policy: pages without the findings panel (the hierarchical flamegraph bench measures the page alone)
return { findings = { pages = false } }
