// placeholder: the page's script (helper P's); prints the summary
"use strict";
(function () {
	const data = JSON.parse(document.getElementById("ebs-data").textContent);
	const dl = document.getElementById("summary");
	let samples = 0;
	for (const c of data.samples.count)
		samples += c;
	const add = (k, v) => {
		const dt = document.createElement("dt");
		const dd = document.createElement("dd");
		dt.textContent = k;
		dd.textContent = v;
		dd.dataset.key = k;
		dl.append(dt, dd);
	};
	for (const r of data.recordings)
		add("command", r.cmdline || r.target || r.file);
	add("event", data.events.join(", "));
	add("samples", String(samples));
	add("functions", String(data.funcs.length));
	add("threads", String(data.threads.length));
	window.ebsView = { ready: true, data: data };
})();
