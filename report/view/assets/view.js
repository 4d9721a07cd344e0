/*
 * view.js - the front end of `ebs view`'s page: reads the data (docs/view.md,
 * format 1) from script#ebs-data and draws the views from it.  Every view is
 * computed from the aggregated samples columns for the current selection
 * (buckets [b0, b1), a set of threads, an event) in one pass over the
 * selected entries; views not shown are drawn when they are shown.  Every
 * recorded string goes in with textContent / createTextNode (never as
 * markup).  The statistics are util/stats.c's: Wilson's interval, the pooled
 * two-proportion z-test, Holm's correction, Newcombe's interval.
 */
"use strict";
(function () {
  var T0 = performance.now();
  var V = (window.ebsView = {
    ready: false,
    timings: { parse_ms: 0, draw_ms: 0, update_ms: 0 },
  });

  /* ---- statistics (util/stats.c) ---------------------------------------------------- */

  /* erfc(x) to about 1e-15 relative: the series of erf below 2.5, a continued fraction above */
  function erfc(x) {
    if (x < 0) return 2 - erfc(-x);
    if (x < 2.5) {
      // erf(x) = 2/sqrt(pi) exp(-x^2) sum 2^n x^(2n+1) / (1*3*...*(2n+1)): all terms positive
      var term = x, sum = x, n = 0, x2 = x * x;
      while (term > sum * 1e-17) {
        n++;
        term *= (2 * x2) / (2 * n + 1);
        sum += term;
      }
      return 1 - (2 / Math.sqrt(Math.PI)) * Math.exp(-x2) * sum;
    }
    // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), Lentz
    var tiny = 1e-300, f = x, C = x, Dd = 0, k;
    for (k = 1; k < 500; k++) {
      var a = k / 2;
      Dd = x + a * Dd;
      Dd = Dd === 0 ? tiny : Dd;
      C = x + a / C;
      C = C === 0 ? tiny : C;
      Dd = 1 / Dd;
      var delta = C * Dd;
      f *= delta;
      if (Math.abs(delta - 1) < 1e-16) break;
    }
    return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
  }
  function normCdf(z) {
    return 0.5 * erfc(-z / Math.SQRT2);
  }
  function normQuantile(p) {
    var a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2,
      -3.066479806614716e1, 2.506628277459239];
    var b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1,
      -1.328068155288572e1];
    var c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734,
      4.374664141464968, 2.938163982698783];
    var d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
    var q, r, x, e, u;
    if (!(p >= 0 && p <= 1)) return NaN;
    if (p === 0) return -Infinity;
    if (p === 1) return Infinity;
    if (p > 0.5) return -normQuantile(1 - p);
    if (p < 0.02425) {
      q = Math.sqrt(-2 * Math.log(p));
      x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
      q = p - 0.5;
      r = q * q;
      x = ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    e = normCdf(x) - p;
    u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
    return x - u / (1 + (x * u) / 2);
  }
  /* ebs_wilson: [lo, hi] of k in n, fractions */
  function wilson(k, n, z) {
    if (!n) return [0, 0];
    var p = k / n, z2n = (z * z) / n;
    var center = (p + z2n / 2) / (1 + z2n);
    var half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
    return [center - half < 0 ? 0 : center - half, center + half > 1 ? 1 : center + half];
  }
  var Z95 = 1.959964; /* present_wilson95's */
  /* ebs_two_prop at level 0.95 */
  function twoProp(k1, n1, k2, n2) {
    var o = { p1: k1 / n1, p2: k2 / n2, diff: 0, z: 0, p: 1, lo: 0, hi: 0 };
    o.diff = o.p2 - o.p1;
    var q = (k1 + k2) / (n1 + n2);
    var se = Math.sqrt(q * (1 - q) * (1 / n1 + 1 / n2));
    if (se > 0) {
      o.z = o.diff / se;
      o.p = erfc(Math.abs(o.z) / Math.SQRT2);
    }
    var z = normQuantile(1 - (1 - 0.95) / 2);
    var w1 = wilson(k1, n1, z), w2 = wilson(k2, n2, z);
    o.lo = o.diff - Math.sqrt((o.p2 - w2[0]) * (o.p2 - w2[0]) + (w1[1] - o.p1) * (w1[1] - o.p1));
    o.hi = o.diff + Math.sqrt((w2[1] - o.p2) * (w2[1] - o.p2) + (o.p1 - w1[0]) * (o.p1 - w1[0]));
    return o;
  }
  /* ebs_holm: adjusted p of each */
  function holm(p) {
    var m = p.length, idx = new Array(m), adj = new Float64Array(m), run = 0, j;
    for (j = 0; j < m; j++) idx[j] = j;
    idx.sort(function (a, b) {
      var pa = isNaN(p[a]) ? 1 : p[a], pb = isNaN(p[b]) ? 1 : p[b];
      return pa - pb || a - b;
    });
    for (j = 0; j < m; j++) {
      var v = isNaN(p[idx[j]]) ? 1 : p[idx[j]];
      run = Math.max(run, Math.min(1, (m - j) * v));
      adj[idx[j]] = run;
    }
    return adj;
  }
  /* printf("%.*f") of C: the exact value rounded, a tie to even (toFixed takes the larger) */
  function fixedC(x, f) {
    if (!isFinite(x)) return String(x);
    if (x < 0) {
      var s = fixedC(-x, f);
      return "-" + s;
    }
    var r = x.toFixed(f);
    if (x >= 1e21) return r;
    var t = x.toFixed(100), dot = t.indexOf("."), rest = t.substring(dot + 1 + f);
    if (/^50*$/.test(rest)) {
      var cut = t.substring(0, dot + 1 + f);
      if (f === 0) cut = t.substring(0, dot);
      var last = cut.charCodeAt(cut.length - 1) - 48;
      if (last % 2 === 0) return cut;
    }
    return r;
  }
  V.stats = { erfc: erfc, normQuantile: normQuantile, wilson: wilson, twoProp: twoProp, holm: holm,
    fixed: fixedC };

  /* ---- helpers ---------------------------------------------------------------------- */

  function $(id) {
    return document.getElementById(id);
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  var SVGNS = "http://www.w3.org/2000/svg";
  function sel(tag) {
    return document.createElementNS(SVGNS, tag);
  }
  function clearEl(e) {
    while (e.firstChild) e.removeChild(e.firstChild);
  }
  /* "1 sample", "2 samples": n as int() and the word, singular for one */
  function count(n, word) {
    return int(n) + " " + word + (Math.round(n) === 1 ? "" : "s");
  }
  /* n with thousands separated by commas (not toLocaleString: its first call loads ICU's data) */
  function int(n) {
    var s = String(Math.round(Math.abs(n))), out = "";
    while (s.length > 3) {
      out = "," + s.substring(s.length - 3) + out;
      s = s.substring(0, s.length - 3);
    }
    return (n < 0 && Math.round(n) !== 0 ? "-" : "") + s + out;
  }
  function pct(k, n) {
    return n ? (100 * k) / n : 0;
  }
  function pctText(v) {
    return v >= 10 ? v.toFixed(1) + "%" : v.toFixed(2) + "%";
  }
  function secs(ns) {
    var s = ns / 1e9;
    return s >= 100 ? s.toFixed(1) + " s" : s >= 1 ? s.toFixed(3) + " s" : (s * 1000).toFixed(2) + " ms";
  }
  /* A heat colour for x in [0, 1]: pale yellow to dark red. */
  var HEAT = [[255, 247, 204], [254, 217, 118], [253, 141, 60], [227, 26, 28], [153, 0, 13]];
  function heatRGB(x) {
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    var s = x * (HEAT.length - 1), i = Math.min(HEAT.length - 2, Math.floor(s)), f = s - i;
    var a = HEAT[i], b = HEAT[i + 1];
    return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
  }
  function heat(x) {
    var c = heatRGB(x);
    return "rgb(" + (c[0] | 0) + "," + (c[1] | 0) + "," + (c[2] | 0) + ")";
  }
  /* a word for a shell: quoted when it needs it */
  function shq(s) {
    return /^[A-Za-z0-9_.,:\/+=@%-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
  }
  /*
   * A command for a POSIX shell: "ebs CMD [the selection's options] ARG", ARG one word
   * whatever it holds (quotes, spaces, $, newlines), after "--" when it begins with "-"
   * (else getopt reads it as an option); or ARG of option opt (getopt takes it as it is).
   */
  function cmdText(cmd, arg, opt) {
    var cli = cliText();
    return "ebs " + cmd + (cli ? " " + cli : "") + (opt ? " " + opt + " " : arg.charAt(0) === "-" ? " -- " : " ") + shq(arg);
  }
  function cmpStr(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /* ---- the data --------------------------------------------------------------------- */

  var D;
  try {
    D = JSON.parse($("ebs-data").textContent);
  } catch (err) {
    document.body.textContent = "ebs view: the page's data cannot be read: " + err.message;
    return;
  }
  V.data = D;
  V.timings.json_ms = performance.now() - T0;
  var B = D.nbuckets | 0, W = D.bucket_ns;
  var I32 = function (a) {
    return a ? new Int32Array(a) : new Int32Array(0);
  };
  var S = D.samples;
  var colBS = I32(S.bucket_start), colTh = I32(S.thread), colEv = I32(S.event);
  var colStk = I32(S.stack), colCnt = I32(S.count);
  var NE = colTh.length;

  var funcs = D.funcs || [], NF = funcs.length;
  var fName = new Array(NF), fDso = new Array(NF), fFlags = new Int32Array(NF), fDsoIdx = new Int32Array(NF);
  var dsos = D.dsos || [];
  var nameIds = new Map(), fNameId = new Int32Array(NF);
  for (var i = 0; i < NF; i++) {
    var fn = funcs[i];
    fName[i] = String(fn[0]);
    fDsoIdx[i] = fn[1];
    fDso[i] = fn[1] >= 0 && dsos[fn[1]] ? String(dsos[fn[1]][0]) : "";
    fFlags[i] = fn[2] | 0;
    var nid = nameIds.get(fName[i]);
    if (nid === undefined) nameIds.set(fName[i], (nid = nameIds.size));
    fNameId[i] = nid;
  }

  var nodesA = D.nodes || [], NN = nodesA.length >> 1;
  var nParent = new Int32Array(NN), nFunc = new Int32Array(NN);
  for (i = 0; i < NN; i++) {
    nParent[i] = nodesA[2 * i];
    nFunc[i] = nodesA[2 * i + 1];
  }
  var sitesA = D.sites || [], NS = sitesA.length >> 1;
  var sFunc = new Int32Array(NS);
  for (i = 0; i < NS; i++) sFunc[i] = sitesA[2 * i];
  var stacksA = D.stacks || [], NST = stacksA.length >> 1;
  var kNode = new Int32Array(NST), kSite = new Int32Array(NST), kFunc = new Int32Array(NST);
  for (i = 0; i < NST; i++) {
    kNode[i] = stacksA[2 * i];
    kSite[i] = stacksA[2 * i + 1];
    kFunc[i] = kSite[i] >= 0 ? sFunc[kSite[i]] : kNode[i] >= 0 ? nFunc[kNode[i]] : -1;
  }
  /*
   * The diff's rows are ebs diff's: a function and its DSO, an inlined one apart for
   * each function it was inlined into ("f (inlined into g)", as report's rows are):
   * the data's site_into when it has it (the function each instruction's code was
   * inlined into), else the nearest caller of another name on the stack.
   */
  var keyIds = new Map(), kKey = new Int32Array(NST), keyFunc = [], keyInto = [];
  var siteInto = D.site_into || null;
  for (i = 0; i < NST; i++) {
    var kf = kFunc[i], into = -1;
    if (kf >= 0 && siteInto && kSite[i] >= 0) into = siteInto[kSite[i]];
    else if (kf >= 0 && fFlags[kf] & 2) {
      var up = kNode[i] >= 0 ? nParent[kNode[i]] : -1;
      while (up >= 0 && fName[nFunc[up]] === fName[kf]) up = nParent[up];
      into = up >= 0 ? nFunc[up] : -1;
    }
    if (into >= 0 && fName[into] === fName[kf]) into = -1;
    var dkey = kf + "\u0000" + (into >= 0 ? fName[into] : ""), dk = keyIds.get(dkey);
    if (dk === undefined) {
      keyIds.set(dkey, (dk = keyFunc.length));
      keyFunc.push(kf);
      keyInto.push(into);
    }
    kKey[i] = dk;
  }
  /* ...and rows of one name and DSO in several functions' entries are one */
  (function () {
    var byText = new Map(), remap = new Int32Array(keyFunc.length), f2 = [], i2 = [];
    for (var k = 0; k < keyFunc.length; k++) {
      var f = keyFunc[k], t = diffName(f, keyInto[k]) + "\u0000" + (f >= 0 ? dsoName(f) : ""), id = byText.get(t);
      if (id === undefined) {
        byText.set(t, (id = f2.length));
        f2.push(f);
        i2.push(keyInto[k]);
      }
      remap[k] = id;
    }
    for (k = 0; k < NST; k++) kKey[k] = remap[kKey[k]];
    keyFunc = f2;
    keyInto = i2;
  })();
  var NK = keyFunc.length;
  function dsoName(f) {
    return fDso[f];
  }
  function diffName(f, into) {
    if (f < 0) return "??";
    return into >= 0 ? fName[f] + " (inlined into " + fName[into] + ")" : fName[f];
  }
  var threads = D.threads || [], NT = threads.length;
  var tRec = new Int32Array(NT), tPid = new Float64Array(NT), tTid = new Float64Array(NT);
  for (i = 0; i < NT; i++) {
    tRec[i] = threads[i][0];
    tPid[i] = threads[i][1];
    tTid[i] = threads[i][2];
  }
  var recs = D.recordings || [];
  var events = D.events || [];

  /* the trie: children (CSR), an order with parents first, depth, first occurrence of a function */
  var nKids0 = new Int32Array(NN + 1), nKids = new Int32Array(NN), roots = [];
  for (i = 0; i < NN; i++) if (nParent[i] >= 0) nKids0[nParent[i] + 1]++;
  for (i = 0; i < NN; i++) nKids0[i + 1] += nKids0[i];
  var fillp = nKids0.slice(0, NN);
  for (i = 0; i < NN; i++) {
    if (nParent[i] >= 0) nKids[fillp[nParent[i]]++] = i;
    else roots.push(i);
  }
  var order = new Int32Array(NN), nDepth = new Int32Array(NN), nFirst = new Uint8Array(NN);
  (function () {
    // depth-first, with a count of each function on the path (recursion counted once)
    var onPath = new Int32Array(NF), stack = [], pos = 0, r, k;
    var cursor = new Int32Array(NN);
    for (r = 0; r < roots.length; r++) {
      stack.push(roots[r]);
      order[pos++] = roots[r];
      nFirst[roots[r]] = 1;
      onPath[nFunc[roots[r]]]++;
      cursor[roots[r]] = nKids0[roots[r]];
      while (stack.length) {
        var n = stack[stack.length - 1];
        if (cursor[n] < nKids0[n + 1]) {
          k = nKids[cursor[n]++];
          nDepth[k] = nDepth[n] + 1;
          nFirst[k] = onPath[nFunc[k]] === 0 ? 1 : 0;
          onPath[nFunc[k]]++;
          order[pos++] = k;
          cursor[k] = nKids0[k];
          stack.push(k);
        } else {
          onPath[nFunc[n]]--;
          stack.pop();
        }
      }
    }
  })();
  var chains = recs.some(function (r) {
    return r.call_graph;
  });

  V.timings.trie_ms = performance.now() - T0;
  /* the flame graph's frames: the trie's nodes merged by name under their parent frame */
  var FR = null, nFrame = null;
  function buildFrames() {
    FR = { parent: [-1], name: ["all"], dso: [""], kind: [0], depth: [0], node: [-1], kids: null };
    nFrame = new Int32Array(NN);
    var idx = new Map(), NM = nameIds.size + 1;
    for (var j = 0; j < NN; j++) {
      var n = order[j], p = nParent[n], pf = p >= 0 ? nFrame[p] : 0, f = nFunc[n];
      var key = pf * NM + fNameId[f], id = idx.get(key);
      if (id === undefined) {
        id = FR.name.length;
        idx.set(key, id);
        FR.parent.push(pf);
        FR.name.push(fName[f]);
        FR.dso.push(fDso[f]);
        FR.kind.push(kindOf(f));
        FR.depth.push(FR.depth[pf] + 1);
        FR.node.push(n);
      } else if (FR.dso[id] !== fDso[f]) {
        FR.dso[id] = "several DSOs";
      }
      nFrame[n] = id;
    }
    var nfr = FR.name.length, kids = [];
    for (j = 0; j < nfr; j++) kids.push([]);
    for (j = 1; j < nfr; j++) kids[FR.parent[j]].push(j);
    for (j = 0; j < nfr; j++)
      if (kids[j].length > 1)
        kids[j].sort(function (a, b) {
          return cmpStr(FR.name[a], FR.name[b]);
        });
    FR.kids = kids;
    FR.n = new Float64Array(nfr);
    FR.stale = true;
  }
  /* the frames' samples, from the nodes' (when the flame graph is drawn) */
  function frameCounts() {
    if (!FR) buildFrames();
    if (!FR.stale) return;
    FR.stale = false;
    FR.n.fill(0);
    FR.n[0] = total;
    for (var j = 0; j < NN; j++) if (nodeTotal[j]) FR.n[nFrame[j]] += nodeTotal[j];
  }
  function kindOf(f) {
    var n = fName[f];
    if (fFlags[f] & 4 || n.lastIndexOf("[unknown]", 0) === 0 || n.lastIndexOf("[truncated]", 0) === 0)
      return 4;
    if (fFlags[f] & 2) return 3;
    if (fFlags[f] & 1 || fDso[f] === "[kernel]") return 2;
    return 1;
  }

  /* ---- the selection and the one pass ---------------------------------------------- */

  var st = { b0: 0, b1: B, threads: null, ev: 0, func: -1, view: "summary" };
  var thSel = new Uint8Array(NT).fill(1);
  var stkCount = new Float64Array(NST), funcSelf = new Float64Array(NF), funcTotal = new Float64Array(NF);
  var nodeSelf = new Float64Array(NN), nodeTotal = new Float64Array(NN), siteCount = new Float64Array(NS);
  var diff = D.diff || null, sideSelf = [new Float64Array(NK), new Float64Array(NK)], sideN = [0, 0];
  var total = 0, orphan = 0;
  var dirty = {};

  function compute() {
    var b0 = colBS[st.b0], b1 = colBS[st.b1], ev = st.ev, j, c, s, n = 0;
    var dB = diff ? diff.base : -1, dN = diff ? diff.new : -1;
    stkCount.fill(0);
    sideN[0] = sideN[1] = 0;
    if (diff) {
      sideSelf[0].fill(0);
      sideSelf[1].fill(0);
    }
    for (j = b0; j < b1; j++) {
      if (colEv[j] !== ev || !thSel[colTh[j]]) continue;
      c = colCnt[j];
      s = colStk[j];
      stkCount[s] += c;
      n += c;
      if (diff) {
        var r = tRec[colTh[j]];
        if (r === dB) {
          sideSelf[0][kKey[s]] += c;
          sideN[0] += c;
        } else if (r === dN) {
          sideSelf[1][kKey[s]] += c;
          sideN[1] += c;
        }
      }
    }
    total = n;
    funcSelf.fill(0);
    funcTotal.fill(0);
    nodeSelf.fill(0);
    siteCount.fill(0);
    orphan = 0;
    for (s = 0; s < NST; s++) {
      c = stkCount[s];
      if (!c) continue;
      if (kFunc[s] >= 0) funcSelf[kFunc[s]] += c;
      if (kNode[s] >= 0) nodeSelf[kNode[s]] += c;
      else orphan += c;
      if (kSite[s] >= 0) siteCount[kSite[s]] += c;
    }
    nodeTotal.set(nodeSelf);
    for (j = NN - 1; j >= 0; j--) {
      var nd = order[j], p = nParent[nd];
      if (p >= 0) nodeTotal[p] += nodeTotal[nd];
    }
    for (j = 0; j < NN; j++) if (nFirst[j] && nodeTotal[j]) funcTotal[nFunc[j]] += nodeTotal[j];
    if (FR) FR.stale = true;
  }

  function update() {
    var t = performance.now();
    compute();
    V.timings.compute_ms = performance.now() - t;
    ["summary", "bottomup", "topdown", "callers", "flame", "source", "diff"].forEach(function (v) {
      dirty[v] = true;
    });
    drawSelection();
    drawTimeline();
    V.timings.timeline_ms = performance.now() - t - V.timings.compute_ms;
    drawView();
    V.timings.update_ms = performance.now() - t;
  }

  function timeText(b) {
    // b * W ns as seconds with 6 decimals, exact (W is whole microseconds)
    var us = Math.round((b * W) / 1000), s = Math.floor(us / 1e6), f = String(us % 1e6);
    return s + "." + "000000".substring(f.length) + f;
  }
  function selTids() {
    if (!st.threads) return [];
    var seen = {}, out = [];
    for (var j = 0; j < NT; j++)
      if (thSel[j] && !seen[tTid[j]]) {
        seen[tTid[j]] = 1;
        out.push(tTid[j]);
      }
    return out.sort(function (a, b) {
      return a - b;
    });
  }
  function cliText() {
    var parts = [];
    if (st.b0 > 0 || st.b1 < B) parts.push("--time " + timeText(st.b0) + "," + timeText(st.b1));
    if (st.threads) parts.push("--tid " + selTids().join(","));
    if (st.ev > 0 && events[st.ev] !== undefined) parts.push("--event " + shq(String(events[st.ev])));
    return parts.join(" ");
  }

  /* ---- the API ---------------------------------------------------------------------- */

  V.selectTime = function (b0, b1) {
    b0 = Math.max(0, Math.min(B - 1, Math.floor(b0)));
    b1 = Math.max(b0 + 1, Math.min(B, Math.ceil(b1)));
    st.b0 = b0;
    st.b1 = b1;
    update();
  };
  V.selectThreads = function (list) {
    var tids = {};
    st.threads = null;
    (list || []).forEach(function (t) {
      if (t >= 0 && t < NT) tids[tTid[t]] = 1;
    });
    if (Object.keys(tids).length) {
      // a thread is its tid: as --tid selects it (in every recording)
      for (var j = 0; j < NT; j++) thSel[j] = tids[tTid[j]] ? 1 : 0;
      st.threads = [];
      for (j = 0; j < NT; j++) if (thSel[j]) st.threads.push(j);
      if (st.threads.length === NT) st.threads = null;
    }
    if (!st.threads) thSel.fill(1);
    update();
  };
  V.clear = function () {
    st.b0 = 0;
    st.b1 = B;
    st.threads = null;
    thSel.fill(1);
    update();
  };
  V.selection = function () {
    return { b0: st.b0, b1: st.b1, threads: st.threads ? st.threads.slice() : [], cli: cliText() };
  };
  V.show = function (v) {
    if (!$("view-" + v)) return;
    st.view = v;
    document.querySelectorAll("#nav button").forEach(function (b) {
      b.classList.toggle("on", b.getAttribute("data-view") === v);
    });
    document.querySelectorAll("section.view").forEach(function (s) {
      s.hidden = s.id !== "view-" + v;
    });
    drawView();
  };
  V.openFunc = function (f) {
    if (!(f >= 0 && f < NF)) return;
    st.func = f;
    dirty.callers = dirty.source = true;
    markPicked();
    if (st.view !== "callers" && st.view !== "source") V.show(annotation(f) || !chains ? "source" : "callers");
    else drawView();
  };
  V.event = function (i) {
    if (i === undefined) return st.ev;
    if (!(i >= 0 && i < events.length)) return st.ev;
    st.ev = i;
    $("event").value = String(i);
    density = null;
    update();
    return st.ev;
  };

  /* ---- the selection bar ------------------------------------------------------------ */

  function drawSelection() {
    var box = $("selection"), cli = cliText(), full = st.b0 === 0 && st.b1 === B;
    clearEl(box);
    var span = Math.max.apply(null, recs.map(function (r) {
      return r.span_ns || 0;
    }).concat([0]));
    var what = el("span");
    if (full) what.appendChild(el("b", null, "Whole recording"));
    else {
      what.appendChild(el("b", null, timeText(st.b0) + " \u2013 " + timeText(st.b1) + " s"));
      what.appendChild(document.createTextNode(" (" + secs((st.b1 - st.b0) * W) + ")"));
    }
    if (full) what.appendChild(document.createTextNode(" (" + secs(span) + ")"));
    what.appendChild(document.createTextNode(" \u00b7 " + (st.threads ? st.threads.length + " of " + NT :
      NT === 1 ? "1" : "all " + NT) + (NT === 1 ? " thread" : " threads") + " \u00b7 "));
    what.appendChild(el("b", null, int(total)));
    what.appendChild(document.createTextNode((Math.round(total) === 1 ? " sample of " : " samples of ") + (events[st.ev] || "?")));
    box.appendChild(what);
    if (cli) {
      box.appendChild(document.createTextNode("  \u2003as "));
      box.appendChild(el("code", null, cli));
    }
    $("clear-selection").disabled = !full || st.threads ? false : true;
  }

  /* ---- the timeline ----------------------------------------------------------------- */

  var density = null, densMax = 1, strips = [];
  function computeDensity() {
    density = new Float64Array(NT * B);
    densMax = 1;
    for (var b = 0; b < B; b++)
      for (var j = colBS[b]; j < colBS[b + 1]; j++) {
        if (colEv[j] !== st.ev) continue;
        var k = colTh[j] * B + b, v = (density[k] += colCnt[j]);
        if (v > densMax) densMax = v;
      }
  }
  function buildTimeline() {
    var box = $("timeline"), idx = [], j;
    for (j = 0; j < NT; j++) idx.push(j);
    idx.sort(function (a, b) {
      return tRec[a] - tRec[b] || tPid[a] - tPid[b] || tTid[a] - tTid[b] || a - b;
    });
    var lastKey = null;
    idx.forEach(function (t) {
      var key = tRec[t] + ":" + tPid[t];
      if (key !== lastKey) {
        lastKey = key;
        var g = el("div", "group");
        var lead = threads.filter(function (x) {
          return x[0] === tRec[t] && x[1] === tPid[t] && x[2] === tPid[t];
        })[0];
        g.appendChild(el("b", null, "pid " + tPid[t]));
        g.appendChild(document.createTextNode(" " + String(lead ? lead[3] : threads[t][3])));
        if (recs.length > 1) g.appendChild(document.createTextNode(" \u00b7 " + String(recs[tRec[t]] ?
          recs[tRec[t]].file : "recording " + tRec[t])));
        box.appendChild(g);
      }
      var s = el("div", "strip");
      s.setAttribute("data-thread", String(t));
      var lab = el("span", "strip-label", tTid[t] + " " + String(threads[t][3]));
      lab.title = "tid " + tTid[t] + " " + String(threads[t][3]) + " (click: only it; ctrl/shift-click: add or remove)";
      var cv = document.createElement("canvas");
      cv.width = Math.max(1, B);
      cv.height = 1;
      s.appendChild(lab);
      s.appendChild(cv);
      box.appendChild(s);
      strips.push({ t: t, el: s, cv: cv, ctx: cv.getContext("2d", { willReadFrequently: true }), img: null });
      lab.addEventListener("click", function (e) {
        var cur = st.threads ? st.threads.slice() : [];
        if (e.ctrlKey || e.shiftKey || e.metaKey) {
          var k = cur.indexOf(t);
          if (k >= 0) cur = cur.filter(function (x) { return tTid[x] !== tTid[t]; });
          else cur.push(t);
          V.selectThreads(cur.length ? cur : null);
        } else if (cur.length && cur.every(function (x) { return tTid[x] === tTid[t]; })) {
          V.selectThreads(null);
        } else {
          V.selectThreads([t]);
        }
      });
      cv.addEventListener("mousedown", startDrag);
      cv.addEventListener("mousemove", function (e) {
        var b = bucketAt(cv, e.clientX), v = density ? density[t * B + b] : 0, tip = $("tip");
        tip.textContent = "tid " + tTid[t] + " " + String(threads[t][3]) + "\n" + timeText(b) + " \u2013 " +
          timeText(b + 1) + " s: " + int(v) + " sample" + (v === 1 ? "" : "s") + " of " + (events[st.ev] || "?");
        tip.hidden = false;
        tip.style.left = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8) + "px";
        tip.style.top = e.clientY + 16 + "px";
      });
      cv.addEventListener("mouseleave", function () {
        $("tip").hidden = true;
      });
    });
    // the axis: a tick at round seconds
    var axis = $("axis"), spanS = (B * W) / 1e9, steps = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5,
      1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 3600];
    var step = steps[steps.length - 1];
    for (j = 0; j < steps.length; j++) if (spanS / steps[j] <= 8) { step = steps[j]; break; }
    for (var x = 0; x <= spanS + 1e-9; x += step) {
      var sp = el("span", null, +x.toFixed(3) + " s");
      sp.style.left = (100 * x) / spanS + "%";
      axis.appendChild(sp);
    }
  }
  var drag = null;
  function bucketAt(cv, clientX) {
    var r = cv.getBoundingClientRect();
    var b = Math.floor(((clientX - r.left) / r.width) * B);
    return Math.max(0, Math.min(B - 1, b));
  }
  function startDrag(e) {
    if (e.button !== 0) return;
    e.preventDefault();
    drag = { cv: e.target, x: e.clientX, a: bucketAt(e.target, e.clientX), b: bucketAt(e.target, e.clientX) };
    drag.b = drag.a;
  }
  document.addEventListener("mousemove", function (e) {
    if (!drag) return;
    drag.b = bucketAt(drag.cv, e.clientX);
    drawTimeline();
  });
  document.addEventListener("mouseup", function (e) {
    if (!drag) return;
    var d = drag;
    drag = null;
    d.b = bucketAt(d.cv, e.clientX);
    if (Math.abs(e.clientX - d.x) < 3 && d.a === d.b) {
      // a plain click on a strip (not its label) clears the time range, as perf's and hotspot's timelines do
      if (st.b0 > 0 || st.b1 < B) V.selectTime(0, B);
      else drawTimeline();
      return;
    }
    V.selectTime(Math.min(d.a, d.b), Math.max(d.a, d.b) + 1);
  });
  function drawTimeline() {
    if (!density) computeDensity();
    var lo = st.b0, hi = st.b1;
    if (drag) {
      lo = Math.min(drag.a, drag.b);
      hi = Math.max(drag.a, drag.b) + 1;
    }
    var bg = [243, 244, 247];
    strips.forEach(function (s) {
      if (!s.img) s.img = s.ctx.createImageData(B, 1);
      var d = s.img.data, t = s.t, on = thSel[t] === 1;
      for (var b = 0; b < B; b++) {
        var v = density[t * B + b], c = v ? heatRGB(0.12 + 0.88 * Math.sqrt(v / densMax)) : bg;
        var dim = !on ? 0.85 : b < lo || b >= hi ? 0.72 : 0; // a thread not selected: dimmed alike throughout
        d[4 * b] = c[0] + (255 - c[0]) * dim;
        d[4 * b + 1] = c[1] + (255 - c[1]) * dim;
        d[4 * b + 2] = c[2] + (255 - c[2]) * dim;
        d[4 * b + 3] = 255;
      }
      s.ctx.putImageData(s.img, 0, 0);
      s.el.classList.toggle("on", !!st.threads && on);
      s.el.classList.toggle("off", !on);
    });
  }

  /* ---- views ------------------------------------------------------------------------ */

  function drawView() {
    var v = st.view;
    if (!dirty[v]) return;
    dirty[v] = false;
    ({ summary: drawSummary, bottomup: drawBottomUp, topdown: drawTopDown, callers: drawCallers,
      flame: drawFlame, source: drawSource, diff: drawDiff })[v]();
  }
  function noChains(box) {
    var m = el("div", "msg");
    m.appendChild(document.createTextNode("This recording has no call chains, which this view needs: record them with "));
    m.appendChild(el("code", null, "ebs record -g"));
    m.appendChild(document.createTextNode(" (frame pointers) or "));
    m.appendChild(el("code", null, "ebs record --call-graph dwarf"));
    m.appendChild(document.createTextNode("."));
    box.appendChild(m);
  }
  function funcCell(td, f) {
    td.textContent = fName[f];
    td.title = fName[f] + (fDso[f] ? " (" + fDso[f] + ")" : "");
    var k = kindOf(f);
    if (k === 2) td.classList.add("kind-kernel");
    else if (k === 3) td.classList.add("kind-inline", "inl");
    else if (k === 4) td.classList.add("kind-unknown");
  }
  function shareCell(td, share, scale) {
    var bar = el("i", "heat");
    bar.style.width = Math.max(0, Math.min(100, scale * 100)) + "%";
    bar.style.background = heat(0.08 + 0.5 * scale);
    td.appendChild(bar);
    td.appendChild(el("span", null, pctText(share)));
  }
  function ciText(lo, hi) {
    return "[" + lo.toFixed(1) + ", " + hi.toFixed(1) + "]";
  }

  /* A long table: its rows made a few hundred at a time (on scroll, or "show more"). */
  function LazyTable(table, more, make) {
    this.tb = table.tBodies[0];
    this.more = more;
    this.make = make;
    this.items = [];
    this.shown = 0;
    var self = this;
    if (window.IntersectionObserver) {
      this.io = new IntersectionObserver(function (es) {
        if (es.some(function (e) { return e.isIntersecting; }) && self.shown < self.items.length) self.grow(400);
      }, { rootMargin: "400px" });
      this.io.observe(more);
    }
  }
  LazyTable.prototype.set = function (items) {
    this.items = items;
    this.shown = 0;
    clearEl(this.tb);
    this.grow(300);
  };
  LazyTable.prototype.grow = function (k) {
    var frag = document.createDocumentFragment(), end = Math.min(this.items.length, this.shown + k);
    for (var j = this.shown; j < end; j++) frag.appendChild(this.make(this.items[j], j));
    this.tb.appendChild(frag);
    this.shown = end;
    clearEl(this.more);
    var left = this.items.length - end, self = this;
    if (left > 0) {
      var b = el("button", null, "Show " + Math.min(left, 500) + " more of " + int(left));
      b.type = "button";
      b.addEventListener("click", function () {
        self.grow(500);
      });
      this.more.appendChild(b);
    }
  };

  /* summary */
  function dd(dl, key, label, text, rec, value) {
    dl.appendChild(el("dt", null, label));
    var d = el("dd", null, text);
    d.setAttribute("data-key", key);
    if (rec !== undefined && rec !== null) d.setAttribute("data-recording", String(rec));
    if (value !== undefined) d.setAttribute("data-value", String(value));
    dl.appendChild(d);
    return d;
  }
  function evInfo(r) {
    var name = events[st.ev];
    return (r.events || []).filter(function (e) { return e.name === name; })[0] || (r.events || [])[0];
  }
  function samplingText(e) {
    if (!e) return "?";
    if (e.freq) return int(e.freq) + " Hz";
    if (e.period) return "every " + int(e.period) + " events";
    return "?";
  }
  function drawSummary() {
    var box = $("view-summary");
    clearEl(box);
    var cards = el("div", "cards"), c = el("div", "card"), dl = el("dl", "kv"), j;
    c.appendChild(el("h3", null, "Profile"));
    var first = recs[0] || {};
    dd(dl, "command", "command", recs.map(function (r) { return String(r.cmdline || r.target || ""); }).join("\n")).className = "mono";
    var ei = evInfo(first), evt = String(events[st.ev] || "?");
    if (ei && ei.fallback) evt += " (asked " + String(ei.asked) + ", fell back: " + String(ei.fallback) + ")";
    dd(dl, "event", "event", evt);
    dd(dl, "sampling", "sampling", samplingText(ei));
    dd(dl, "calibration", "calibration", recs.map(function (r) { return r.calibration ? String(r.calibration) : null; })
      .filter(Boolean).join("; ") || "none");
    var recorded = recs.reduce(function (a, r) { return a + (r.samples || 0); }, 0);
    var sd = dd(dl, "samples", "samples", int(total), null, total);
    sd.appendChild(el("span", "note", "  of " + int(recorded) + " recorded"));
    var lost = recs.reduce(function (a, r) { return a + (r.lost || 0); }, 0);
    dd(dl, "lost", "lost", int(lost) + (recorded + lost ? " (" + pctText(pct(lost, recorded + lost)) + ")" : ""), null, lost);
    var span = Math.max.apply(null, recs.map(function (r) { return r.span_ns || 0; }).concat([0]));
    var full = st.b0 === 0 && st.b1 === B;
    dd(dl, "duration", "duration", full ? secs(span) : secs((st.b1 - st.b0) * W) + " of " + secs(span), null,
      full ? span : (st.b1 - st.b0) * W);
    var nsel = st.threads ? st.threads.length : NT;
    var active = {};
    for (j = colBS[st.b0]; j < colBS[st.b1]; j++) if (colEv[j] === st.ev && thSel[colTh[j]]) active[colTh[j]] = 1;
    var nact = Object.keys(active).length;
    dd(dl, "threads", "threads", nact + " with samples" + (st.threads ? ", " + nsel + " of " + NT + " selected" : " of " + NT), null, nact);
    var nd = (D.no_debug || []).map(function (k) { return dsos[k] ? String(dsos[k][0]) : "?"; });
    dd(dl, "no-debug", "no debug info", nd.length ? nd.join(", ") : "none", null, nd.length);
    c.appendChild(dl);
    cards.appendChild(c);

    // the hottest functions of the selection
    var hc = el("div", "card");
    hc.appendChild(el("h3", null, "Hottest functions (self)"));
    var idx = [];
    for (j = 0; j < NF; j++) if (funcSelf[j]) idx.push(j);
    idx.sort(function (a, b) { return funcSelf[b] - funcSelf[a] || cmpStr(fName[a], fName[b]); });
    var ul = el("ul", "hotlist"), top = idx.length ? funcSelf[idx[0]] : 1;
    idx.slice(0, 12).forEach(function (f) {
      var li = el("li"), bar = el("span", "bar"), i2 = el("i");
      i2.style.width = (100 * funcSelf[f]) / top + "%";
      bar.appendChild(i2);
      li.appendChild(el("span", "pct", pctText(pct(funcSelf[f], total))));
      li.appendChild(bar);
      var fnEl = el("span", "fn", fName[f]);
      fnEl.title = fName[f] + (fDso[f] ? " (" + fDso[f] + ")" : "");
      fnEl.setAttribute("data-func", String(f));
      fnEl.addEventListener("click", function () { V.openFunc(f); });
      li.appendChild(fnEl);
      ul.appendChild(li);
    });
    if (!idx.length) hc.appendChild(el("p", "note", "No samples in the selection."));
    hc.appendChild(ul);
    cards.appendChild(hc);

    recs.forEach(function (r, k) {
      var rc = el("div", "card"), rd = el("dl", "kv");
      rc.appendChild(el("h3", null, recs.length > 1 ? "Recording " + (k + 1) + (diff ? (k === diff.base ? " (base)" :
        k === diff.new ? " (new)" : "") : "") : "Recording"));
      dd(rd, "file", "file", String(r.file || ""), k);
      dd(rd, "host", "host", String(r.host || ""), k);
      dd(rd, "command", "command", String(r.cmdline || ""), k).className = "mono";
      dd(rd, "backend", "backend", String(r.backend || ""), k);
      dd(rd, "event", "events", (r.events || []).map(function (e) {
        return String(e.name) + (e.fallback ? " (asked " + String(e.asked) + ")" : "");
      }).join(", "), k);
      dd(rd, "sampling", "sampling", samplingText(evInfo(r)), k);
      dd(rd, "calibration", "calibration", r.calibration ? String(r.calibration) : "none", k);
      dd(rd, "samples", "samples", int(r.samples || 0), k, r.samples || 0);
      dd(rd, "lost", "lost", int(r.lost || 0) + (r.throttled ? ", throttled " + int(r.throttled) : ""), k, r.lost || 0);
      dd(rd, "duration", "duration", secs(r.span_ns || 0), k, r.span_ns || 0);
      dd(rd, "call-graph", "call graph", r.call_graph ? String(r.call_graph) : "none (record with ebs record -g)", k);
      var nth = 0;
      for (var t = 0; t < NT; t++) nth += tRec[t] === k;
      dd(rd, "threads", "threads", String(nth), k, nth);
      rc.appendChild(rd);
      cards.appendChild(rc);
    });
    box.appendChild(cards);
    if (D.annotate_left) {
      var p = el("p", "note", int(D.annotate_left) + (D.annotate_left === 1 ? " function is" : " functions are") +
        " over this page's size bound for listings; ");
      p.appendChild(el("code", null, "ebs annotate FUNC"));
      p.appendChild(document.createTextNode(" shows each."));
      box.appendChild(p);
    }
    var none = D.annotate_none || {};
    if (none.no_symbol) {
      box.appendChild(el("p", "note", int(none.no_symbol) + (none.no_symbol === 1 ? " function" : " functions") +
        " with samples have no symbol ([unknown] DSO+0xADDR: a stripped DSO without its debug file here): " +
        "there is no function to list; the DSO's symbols (its debug file, e.g. Debian's -dbgsym package) name them."));
    }
  }

  /* bottom-up */
  var bu = { sort: "self", dir: -1, table: null };
  function searchText() {
    return $("search").value;
  }
  function matcher(q) {
    if (!q) return null;
    if (q !== q.toLowerCase()) return function (s) { return s.indexOf(q) >= 0; };
    return function (s) { return s.toLowerCase().indexOf(q) >= 0; };
  }
  function drawBottomUp() {
    var m = matcher(searchText()), idx = [], j, key = bu.sort, dir = bu.dir;
    for (j = 0; j < NF; j++) if ((funcSelf[j] || funcTotal[j]) && (!m || m(fName[j]))) idx.push(j);
    idx.sort(function (a, b) {
      var c = 0;
      if (key === "name") c = cmpStr(fName[a], fName[b]);
      else if (key === "dso") c = cmpStr(fDso[a], fDso[b]);
      else if (key === "total") c = funcTotal[a] - funcTotal[b];
      else c = funcSelf[a] - funcSelf[b];
      return dir * c || funcSelf[b] - funcSelf[a] || cmpStr(fName[a], fName[b]) || a - b;
    });
    var top = 0;
    idx.forEach(function (f) { if (funcSelf[f] > top) top = funcSelf[f]; });
    document.querySelectorAll("#bottomup th[data-sort]").forEach(function (th) {
      th.classList.toggle("asc", th.getAttribute("data-sort") === key && dir > 0);
      th.classList.toggle("desc", th.getAttribute("data-sort") === key && dir < 0);
    });
    $("bottomup-note").textContent = count(idx.length, "function") + (m ? " matching" : "") + " \u00b7 " +
      count(total, "sample") + "; self % is of these, with Wilson's 95% interval" +
      (chains ? "; total: samples with the function on their stack" : "; no call chains recorded, total = self") +
      ". Double-click or Enter: the function's " + (chains ? "callers" : "source") + ".";
    if (!bu.table)
      bu.table = new LazyTable($("bottomup"), $("view-bottomup").querySelector(".more"), function (f) {
        var tr = el("tr"), share = pct(funcSelf[f], total), w = wilson(funcSelf[f], total, Z95);
        tr.setAttribute("data-func", String(f));
        tr.setAttribute("data-self", String(funcSelf[f]));
        tr.setAttribute("data-total", String(funcTotal[f]));
        tr.setAttribute("data-share", fixedC(share, 4));
        tr.setAttribute("data-lo", fixedC(100 * w[0], 4));
        tr.setAttribute("data-hi", fixedC(100 * w[1], 4));
        var td = el("td", "name");
        funcCell(td, f);
        tr.appendChild(td);
        td = el("td", "dso", fDso[f]);
        td.title = fDso[f];
        tr.appendChild(td);
        tr.appendChild(el("td", "self", int(funcSelf[f])));
        tr.appendChild(el("td", "total", int(funcTotal[f])));
        td = el("td", "share");
        shareCell(td, share, bu.top ? funcSelf[f] / bu.top : 0);
        tr.appendChild(td);
        tr.appendChild(el("td", "ci", ciText(100 * w[0], 100 * w[1])));
        if (f === st.func) tr.classList.add("picked");
        return tr;
      });
    bu.top = top;
    bu.table.set(idx);
  }
  function markPicked() {
    document.querySelectorAll("tr.picked").forEach(function (t) { t.classList.remove("picked"); });
    document.querySelectorAll('#bottomup tr[data-func="' + st.func + '"]').forEach(function (t) { t.classList.add("picked"); });
  }

  /* top-down */
  var td = { open: new Set(), all: new Set(), init: false };
  function kidsByTotal(n) {
    var out = [], a = n < 0 ? roots : null, j;
    if (a) out = a.filter(function (k) { return nodeTotal[k] > 0; });
    else for (j = nKids0[n]; j < nKids0[n + 1]; j++) if (nodeTotal[nKids[j]]) out.push(nKids[j]);
    return out.sort(function (x, y) { return nodeTotal[y] - nodeTotal[x] || cmpStr(fName[nFunc[x]], fName[nFunc[y]]); });
  }
  function drawTopDown() {
    var box = $("topdown");
    clearEl(box);
    if (!chains) {
      $("topdown-note").textContent = "";
      noChains(box);
      return;
    }
    if (!td.init) {
      // open the hottest path while it holds at least 5% of the samples
      td.init = true;
      var n = -1, guard = 0;
      while (guard++ < 64) {
        var k = kidsByTotal(n);
        if (n >= 0) td.open.add(n);
        if (!k.length || nodeTotal[k[0]] * 20 < total) break;
        n = k[0];
      }
      roots.forEach(function (r) { td.open.add(r); });
    }
    $("topdown-note").textContent = "Call tree from the outermost frame in: total = samples at or under the frame, " +
      "self = samples there. Click a row to open or close it; Enter shows the function's callers.";
    var head = el("div", "trow head");
    ["total", "self", "total %", "function"].forEach(function (h, i) { head.appendChild(el("div", i < 3 ? "n" : "f", h)); });
    box.appendChild(head);
    var rows = [], limit = 3000;
    (function walk(n) {
      var k = kidsByTotal(n), lim = td.all.has(n) ? k.length : 40, j;
      for (j = 0; j < k.length && j < lim && rows.length < limit; j++) {
        rows.push(k[j]);
        if (td.open.has(k[j])) walk(k[j]);
      }
      if (j < k.length && rows.length < limit) {
        var rest = 0;
        for (var i2 = j; i2 < k.length; i2++) rest += nodeTotal[k[i2]];
        rows.push({ more: n, left: k.length - j, samples: rest });
      }
    })(-1);
    var frag = document.createDocumentFragment();
    rows.forEach(function (n) {
      if (typeof n === "object") {
        var m = el("div", "trow more-row");
        m.setAttribute("data-more", String(n.more));
        m.appendChild(el("div", "n", int(n.samples)));
        m.appendChild(el("div", "n", ""));
        m.appendChild(el("div", "p", pctText(pct(n.samples, total))));
        var mf = el("div", "f", "\u2026 " + int(n.left) + " more (show all)");
        mf.style.paddingLeft = (n.more >= 0 ? nDepth[n.more] + 1 : 0) * 14 + 14 + "px";
        m.appendChild(mf);
        frag.appendChild(m);
        return;
      }
      var r = el("div", "trow"), f = nFunc[n];
      r.setAttribute("data-node", String(n));
      r.setAttribute("data-func", String(f));
      r.setAttribute("data-total", String(nodeTotal[n]));
      r.setAttribute("data-self", String(nodeSelf[n]));
      r.setAttribute("data-depth", String(nDepth[n]));
      r.appendChild(el("div", "n", int(nodeTotal[n])));
      r.appendChild(el("div", "n", int(nodeSelf[n])));
      var p = el("div", "p", pctText(pct(nodeTotal[n], total)));
      p.style.background = "linear-gradient(90deg," + heat(0.08 + 0.5 * nodeTotal[n] / (total || 1)) + " " +
        (100 * nodeTotal[n]) / (total || 1) + "%, transparent 0)";
      r.appendChild(p);
      var fd = el("div", "f");
      fd.style.paddingLeft = Math.min(nDepth[n], 40) * 14 + "px"; // deeper: the depth column says
      var hasKids = nKids0[n + 1] > nKids0[n];
      fd.appendChild(el("span", "t", hasKids ? (td.open.has(n) ? "\u25be" : "\u25b8") : ""));
      var nm = el("span", null, fName[f]);
      var kd = kindOf(f);
      if (kd === 2) nm.className = "kind-kernel";
      else if (kd === 3) nm.className = "kind-inline";
      else if (kd === 4) nm.className = "kind-unknown";
      fd.appendChild(nm);
      if (fDso[f]) fd.appendChild(el("span", "d", fDso[f]));
      fd.title = fName[f] + (fDso[f] ? " (" + fDso[f] + ")" : "");
      r.appendChild(fd);
      if (n === td.cursor) r.classList.add("cursor");
      frag.appendChild(r);
    });
    box.appendChild(frag);
    if (rows.length >= limit) box.appendChild(el("p", "note", "The first " + limit + " rows shown: close some to see more."));
  }
  $("topdown").addEventListener("click", function (e) {
    var m = e.target.closest(".trow[data-more]");
    if (m) {
      td.all.add(+m.getAttribute("data-more"));
      drawTopDown();
      return;
    }
    var r = e.target.closest(".trow[data-node]");
    if (!r) return;
    var n = +r.getAttribute("data-node");
    td.cursor = n;
    st.func = nFunc[n];
    if (td.open.has(n)) td.open.delete(n);
    else td.open.add(n);
    dirty.callers = dirty.source = true;
    drawTopDown();
  });

  /* callers and callees */
  function neighbours(outward) {
    var want = st.func >= 0 ? fNameId[st.func] : -1, cnt = new Map(), stamp = new Map(), matched = 0;
    var j, stk = 0;
    for (j = 0; j < NN; j++) {
      var c = nodeSelf[j];
      if (!c) continue;
      stk++;
      var any = false, n = j, prev = -2; // prev: the frame inside (callee), -2 = "(self)"
      while (n >= 0) {
        var p = nParent[n];
        if (fNameId[nFunc[n]] === want) {
          any = true;
          var nb = outward ? (p >= 0 ? nFunc[p] : -1) : prev;
          if (stamp.get(nb) !== stk) {
            stamp.set(nb, stk);
            cnt.set(nb, (cnt.get(nb) || 0) + c);
          }
        }
        prev = nFunc[n];
        n = p;
      }
      if (any) matched += c;
    }
    var rows = [];
    cnt.forEach(function (v, k) { rows.push([k, v]); });
    rows.sort(function (a, b) {
      return b[1] - a[1] || cmpStr(a[0] >= 0 ? fName[a[0]] : "(", b[0] >= 0 ? fName[b[0]] : "(");
    });
    return { rows: rows, matched: matched };
  }
  function fillCC(table, res, outward) {
    var tb = table.tBodies[0], frag = document.createDocumentFragment();
    clearEl(tb);
    res.rows.slice(0, 500).forEach(function (r) {
      var f = r[0], tr = el("tr"), share = pct(r[1], res.matched), w = wilson(r[1], res.matched, Z95);
      tr.setAttribute("data-func", String(f));
      if (f < 0) tr.setAttribute("data-kind", f === -1 ? "none" : "self");
      tr.setAttribute("data-samples", String(r[1]));
      tr.setAttribute("data-share", fixedC(share, 4));
      tr.setAttribute("data-lo", fixedC(100 * w[0], 4));
      tr.setAttribute("data-hi", fixedC(100 * w[1], 4));
      var tdn = el("td", "name");
      if (f >= 0) funcCell(tdn, f);
      else tdn.textContent = f === -1 ? "(no caller: the chain starts here)" : "(self)";
      tr.appendChild(tdn);
      tr.appendChild(el("td", "dso", f >= 0 ? fDso[f] : ""));
      tr.appendChild(el("td", "num", int(r[1])));
      var ts = el("td", "share");
      shareCell(ts, share, share / 100);
      tr.appendChild(ts);
      tr.appendChild(el("td", "ci", ciText(100 * w[0], 100 * w[1])));
      frag.appendChild(tr);
    });
    tb.appendChild(frag);
  }
  function hottest() {
    var best = -1;
    for (var j = 0; j < NF; j++) if (funcSelf[j] && (best < 0 || funcSelf[j] > funcSelf[best])) best = j;
    return best;
  }
  function drawCallers() {
    var note = $("callers-note"), sec = $("view-callers");
    clearEl(note);
    var old = sec.querySelector(".msg");
    if (old) old.remove();
    sec.querySelector(".cc").hidden = false;
    if (!chains) {
      sec.querySelector(".cc").hidden = true;
      noChains(sec);
      return;
    }
    if (st.func < 0) st.func = hottest();
    if (st.func < 0) {
      note.textContent = "No samples in the selection.";
      fillCC($("callers"), { rows: [], matched: 0 }, true);
      fillCC($("callees"), { rows: [], matched: 0 }, false);
      return;
    }
    var up = neighbours(true), down = neighbours(false);
    note.appendChild(el("b", null, fName[st.func]));
    note.appendChild(document.createTextNode(": " + count(up.matched, "sample") + (up.matched === 1 ? " has" : " have") + " it on its stack (" +
      pctText(pct(up.matched, total)) + "); percent is of those, each sample counted once per neighbour. As "));
    note.appendChild(el("code", null, cmdText("report", fName[st.func], "--callers")));
    note.appendChild(document.createTextNode(". Click a row to move to it; "));
    var go = el("button", "link", "its source");
    go.type = "button";
    go.addEventListener("click", function () { V.show("source"); });
    note.appendChild(go);
    fillCC($("callers"), up, true);
    fillCC($("callees"), down, false);
  }
  function ccClick(e) {
    var tr = e.target.closest("tr[data-func]");
    if (!tr || +tr.getAttribute("data-func") < 0) return;
    st.func = +tr.getAttribute("data-func");
    dirty.source = true;
    drawCallers();
  }
  $("callers").addEventListener("click", ccClick);
  $("callees").addEventListener("click", ccClick);

  /* the flame graph */
  var fl = { zoom: 0, g: [], re: null };
  var FRAME_H = 16, CHAR_W = 7.2;
  function flameFill(kind, name) {
    var h = 2166136261;
    for (var j = 0; j < name.length; j++) h = Math.imul(h ^ (name.charCodeAt(j) & 0xff), 16777619) >>> 0;
    // fnv over UTF-8 bytes, as flame.c: encode first when not ASCII
    if (/[^\x00-\x7f]/.test(name)) {
      h = 2166136261;
      var bytes = unescape(encodeURIComponent(name));
      for (j = 0; j < bytes.length; j++) h = Math.imul(h ^ bytes.charCodeAt(j), 16777619) >>> 0;
    }
    var a = h & 0xff, b = (h >>> 8) & 0xff, c = (h >>> 16) & 0xff, r, g, bl;
    switch (kind) {
      case 1: r = 205 + ((50 * a / 255) | 0); g = 60 + ((160 * b / 255) | 0); bl = (40 * c / 255) | 0; break;
      case 2: r = 70 + ((70 * a / 255) | 0); g = 140 + ((60 * a / 255) | 0); bl = 210 + ((45 * b / 255) | 0); break;
      case 3: r = 80 + ((80 * a / 255) | 0); g = 185 + ((55 * b / 255) | 0); bl = 70 + ((60 * a / 255) | 0); break;
      case 4: r = g = bl = 165 + ((45 * a / 255) | 0); break;
      default: r = 215; g = 210; bl = 200;
    }
    return "rgb(" + r + "," + g + "," + bl + ")";
  }
  function frameInfo(f) {
    return FR.name[f] + (FR.dso[f] ? " (" + FR.dso[f] + ")" : "") + ": " + int(FR.n[f]) + " sample" +
      (FR.n[f] === 1 ? "" : "s") + ", " + pct(FR.n[f], FR.n[0]).toFixed(2) + "%";
  }
  function drawFlame() {
    var svg = $("flame"), note = $("flame-note"), box = $("flame-box");
    clearEl(svg);
    clearEl(note);
    frameCounts(); // without chains: the sampled functions and their inline frames, as ebs flamegraph draws them
    var z = fl.zoom, zn = FR.n[z];
    if (!zn) z = fl.zoom = 0;
    zn = FR.n[z];
    var width = Math.max(300, box.clientWidth - 20), k = zn ? width / zn : 0;
    // what is drawn: ancestors of z at full width, z's subtree of at least 0.1% of z
    var draw = [], xs = [], maxd = 0, hidden = 0, dropped = 0, j;
    for (j = FR.parent[z]; j >= 0; j = FR.parent[j]) {
      draw.push(j);
      xs.push(0);
    }
    var ancestors = draw.length;
    var stack = [[z, 0]];
    while (stack.length) {
      var it = stack.pop(), f = it[0], x = it[1];
      draw.push(f);
      xs.push(x);
      if (FR.depth[f] > maxd) maxd = FR.depth[f];
      var kids = FR.kids[f], cx = x;
      for (j = 0; j < kids.length; j++) {
        var c = kids[j], n = FR.n[c];
        if (!n) continue;
        if (n * 1000 < zn) {
          hidden += n;
          dropped++;
        } else stack.push([c, cx]);
        cx += n;
      }
    }
    var height = (maxd + 1) * FRAME_H;
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(height));
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("data-total", String(FR.n[0]));
    svg.setAttribute("data-zoom", String(z));
    var frag = document.createDocumentFragment();
    fl.g = [];
    for (j = 0; j < draw.length; j++) {
      f = draw[j];
      var up = j < ancestors, fx = up ? 0 : xs[j] * k, fw = up ? width : FR.n[f] * k;
      if (f === 0) fw = width;
      var y = (maxd - FR.depth[f]) * FRAME_H;
      var g = sel("g"), r = sel("rect");
      g.setAttribute("data-frame", String(f));
      g.setAttribute("data-node", String(FR.node[f]));
      g.setAttribute("data-samples", String(FR.n[f]));
      g.setAttribute("data-name", FR.name[f]);
      g.setAttribute("data-depth", String(FR.depth[f]));
      if (up) g.setAttribute("class", "parent");
      r.setAttribute("x", fx.toFixed(2));
      r.setAttribute("y", String(y));
      r.setAttribute("width", Math.max(0, fw).toFixed(2));
      r.setAttribute("height", String(FRAME_H - 1));
      r.setAttribute("rx", "2");
      r.setAttribute("fill", flameFill(FR.kind[f], FR.name[f]));
      g.appendChild(r);
      var max = Math.floor((fw - 6) / CHAR_W), s = FR.name[f];
      if (max >= 3) {
        var t = sel("text");
        t.setAttribute("x", (fx + 3).toFixed(2));
        t.setAttribute("y", (y + 11.5).toFixed(1));
        t.textContent = s.length <= max ? s : s.substring(0, max - 2) + "..";
        g.appendChild(t);
      }
      frag.appendChild(g);
      fl.g.push(g);
    }
    svg.appendChild(frag);
    $("flame-reset").disabled = z === 0;
    note.textContent = count(FR.n[0], "sample") + " of " + (events[st.ev] || "?") +
      (recs[0] && recs[0].call_graph ? ", call graph " + recs[0].call_graph : "") +
      (z ? "; zoomed to " + FR.name[z] + " (" + pctText(pct(zn, FR.n[0])) + ")" : "") +
      (dropped ? "; " + count(dropped, "frame") + " under 0.1% not drawn, holding " + count(hidden, "sample") + " (" +
        pctText(pct(hidden, FR.n[0])) + ")" : "");
    if (!chains) {
      note.appendChild(el("br"));
      note.appendChild(document.createTextNode("Without call chains this shows only the sampled functions (with the " +
        "functions they are inlined into); to see who called them, record with "));
      note.appendChild(el("code", null, "ebs record -g"));
      note.appendChild(document.createTextNode("."));
    }
    flameSearch();
  }
  function flameSearch() {
    var text = $("flame-search").value, out = $("flame-matched"), re;
    if (!FR) return;
    fl.g.forEach(function (g) { g.classList.remove("match"); });
    if (!text) {
      out.textContent = "";
      return;
    }
    try {
      re = new RegExp(text);
    } catch (err) {
      out.textContent = "Not a regular expression";
      return;
    }
    var hit = new Uint8Array(FR.name.length), j, sum = 0;
    for (j = 1; j < FR.name.length; j++) if (FR.n[j] && re.test(FR.name[j])) hit[j] = 1;
    fl.g.forEach(function (g) {
      if (hit[+g.getAttribute("data-frame")]) g.classList.add("match");
    });
    // each sample once: a match under another match adds nothing
    for (j = 1; j < FR.name.length; j++) {
      if (!hit[j]) continue;
      var p = FR.parent[j], inside = false;
      for (; p > 0; p = FR.parent[p]) if (hit[p]) { inside = true; break; }
      if (!inside) sum += FR.n[j];
    }
    out.textContent = "Matched: " + pct(sum, FR.n[0]).toFixed(2) + "%";
    out.setAttribute("data-samples", String(sum));
  }
  $("flame").addEventListener("click", function (e) {
    var g = e.target.closest("g[data-frame]");
    if (!g) return;
    fl.zoom = +g.getAttribute("data-frame");
    drawFlame();
  });
  $("flame").addEventListener("mouseover", function (e) {
    var g = e.target.closest("g[data-frame]");
    $("flame-details").textContent = g ? frameInfo(+g.getAttribute("data-frame")) :
      "Hover over a frame for its samples; click to zoom in";
  });
  $("flame").addEventListener("mousemove", function (e) {
    var g = e.target.closest("g[data-frame]"), tip = $("tip");
    if (!g) {
      tip.hidden = true;
      return;
    }
    tip.textContent = frameInfo(+g.getAttribute("data-frame"));
    tip.hidden = false;
    tip.style.left = Math.max(4, Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8)) + "px";
    tip.style.top = e.clientY + 18 + "px";
  });
  $("flame").addEventListener("mouseleave", function () {
    $("tip").hidden = true;
  });
  $("flame-reset").addEventListener("click", function () {
    fl.zoom = 0;
    drawFlame();
  });
  $("flame-search").addEventListener("input", flameSearch);

  /* source and assembly */
  function annotation(f) {
    var a = D.annotate || {};
    return a[String(f)] || (Object.prototype.hasOwnProperty.call(a, fName[f]) ? a[fName[f]] : null);
  }
  function hexAddr(a) {
    return typeof a === "number" ? a.toString(16) : String(a);
  }
  function drawSource() {
    var pick = $("source-func"), note = $("source-note"), j;
    clearEl(note);
    // the function list: the annotated functions, the hottest first
    var list = [];
    for (j = 0; j < NF; j++) if (annotation(j)) list.push(j);
    list.sort(function (a, b) { return funcSelf[b] - funcSelf[a] || cmpStr(fName[a], fName[b]); });
    if (st.func < 0) st.func = list.length ? list[0] : hottest();
    clearEl(pick);
    var inList = list.indexOf(st.func) >= 0;
    if (!inList && st.func >= 0) list.unshift(st.func);
    list.forEach(function (f) {
      var o = el("option", null, pctText(pct(funcSelf[f], total)) + "  " + fName[f] + (fDso[f] ? "  (" + fDso[f] + ")" : ""));
      o.value = String(f);
      pick.appendChild(o);
    });
    pick.value = String(st.func);
    var src = $("source").tBodies[0], asm = $("asm").tBodies[0];
    clearEl(src);
    clearEl(asm);
    $("source").parentNode.hidden = $("asm").parentNode.hidden = false;
    var f = st.func, a = f >= 0 ? annotation(f) : null;
    if (!a) {
      $("source").parentNode.hidden = $("asm").parentNode.hidden = true;
      if (f < 0) {
        note.textContent = "No samples in the selection.";
        return;
      }
      note.appendChild(el("b", null, fName[f]));
      if (fFlags[f] & 4) {
        // no symbol: annotate has no function there, so no command would list it
        note.appendChild(document.createTextNode(" has no symbol: " + (fFlags[f] & 1 ?
          "the kernel's symbols (kallsyms) were not readable" :
          "its DSO is stripped and its debug file is not here") +
          ", so there is no function to list (annotate names functions by their symbols). " +
          "Record where the DSO's symbols are (its debug file, e.g. Debian's -dbgsym package) to see it."));
        return;
      }
      note.appendChild(document.createTextNode(fFlags[f] & 2 ?
        " was inlined: this page lists the functions compiled on their own; " :
        " is over this page's size bound for listings (" + int(D.annotate_left) +
        (D.annotate_left === 1 ? " function is" : " functions are") + "); "));
      note.appendChild(el("code", null, cmdText("annotate", fName[f])));
      note.appendChild(document.createTextNode(fFlags[f] & 2 ? " shows its lines wherever it was inlined." : " shows it."));
      return;
    }
    var lines = a.lines || [], ins = a.asm || [], map = a.map || [];
    var rowN = new Float64Array(lines.length), asmN = new Float64Array(ins.length), seen = new Set(), fsum = 0;
    for (j = 0; j + 2 < map.length; j += 3) {
      var c = siteCount[map[j]] || 0;
      if (!seen.has(map[j])) {
        seen.add(map[j]);
        fsum += c;
      }
      if (map[j + 1] >= 0) rowN[map[j + 1]] += c;
      if (map[j + 2] >= 0) asmN[map[j + 2]] += c;
    }
    var maxRow = 0, maxAsm = 0;
    rowN.forEach(function (v) { if (v > maxRow) maxRow = v; });
    asmN.forEach(function (v) { if (v > maxAsm) maxAsm = v; });
    note.appendChild(el("b", null, fName[f]));
    note.appendChild(document.createTextNode((fDso[f] ? " (" + fDso[f] + ")" : "") + ": " + count(fsum, "sample") +
      "; percents are of these samples" + (a.file ? " \u00b7 " + String(a.file) : "")));
    if (a.why) note.appendChild(el("div", null, String(a.why)));
    function cells(tr, n, max) {
      var tn = el("td", "n", n ? int(n) : ""), tp = el("td", "n", n ? pctText(pct(n, fsum)) : "");
      if (n) {
        tp.style.background = heat(0.1 + 0.9 * (n / (max || 1)));
        tr.classList.add("hit");
        if (n / (max || 1) > 0.55) tp.style.color = "#fff";
      }
      tr.appendChild(tn);
      tr.appendChild(tp);
    }
    var frag = document.createDocumentFragment(), lastFile = null;
    lines.forEach(function (l, r) {
      var file = l[0] === null || l[0] === undefined ? "" : String(l[0]);
      if (file !== lastFile && lines.length) {
        lastFile = file;
        var h = el("tr", "filehead"), hd = el("td", null, file || "?");
        hd.colSpan = 5;
        h.appendChild(hd);
        frag.appendChild(h);
      }
      var tr = el("tr");
      tr.setAttribute("data-row", String(r));
      tr.setAttribute("data-samples", String(rowN[r]));
      cells(tr, rowN[r], maxRow);
      var tf = el("td", "file", file.replace(/^.*\//, ""));
      tf.title = file;
      tr.appendChild(tf);
      tr.appendChild(el("td", "line", l[1] === null || l[1] === undefined ? "" : String(l[1])));
      tr.appendChild(el("td", "txt", l[2] === null || l[2] === undefined ? "" : String(l[2])));
      frag.appendChild(tr);
    });
    src.appendChild(frag);
    if (!lines.length) $("source").parentNode.hidden = true;
    frag = document.createDocumentFragment();
    ins.forEach(function (x, r) {
      var tr = el("tr");
      tr.setAttribute("data-addr", hexAddr(x[0]));
      tr.setAttribute("data-row", String(x[2]));
      tr.setAttribute("data-samples", String(asmN[r]));
      cells(tr, asmN[r], maxAsm);
      tr.appendChild(el("td", "line", hexAddr(x[0]) + ":"));
      tr.appendChild(el("td", "txt", String(x[1])));
      frag.appendChild(tr);
    });
    asm.appendChild(frag);
    if (!ins.length) $("asm").parentNode.hidden = true;
    $("source").parentNode.parentNode.classList.toggle("one", !lines.length || !ins.length);
    var files = {};
    lines.forEach(function (l) { files[l[0]] = 1; });
    $("source").classList.toggle("onefile", Object.keys(files).length <= 1);
    // the hottest line and instruction in sight
    var hot = -1, hotA = -1;
    for (j = 0; j < rowN.length; j++) if (rowN[j] && (hot < 0 || rowN[j] > rowN[hot])) hot = j;
    for (j = 0; j < asmN.length; j++) if (asmN[j] && (hotA < 0 || asmN[j] > asmN[hotA])) hotA = j;
    reveal($("source"), hot >= 0 ? src.querySelector('tr[data-row="' + hot + '"]') : null);
    reveal($("asm"), hotA >= 0 ? asm.rows[hotA] : null);
  }
  /* scroll a listing's pane so that row is a third of the way down */
  function reveal(table, row) {
    var pane = table.parentNode;
    if (!row || pane.hidden) return;
    pane.scrollTop = Math.max(0, row.offsetTop - pane.clientHeight / 3);
  }
  $("source-func").addEventListener("change", function () {
    st.func = +this.value;
    dirty.callers = true;
    drawSource();
  });
  // a source row picks its instructions, an instruction its row
  function pickRows(row) {
    document.querySelectorAll("#view-source tr.pick").forEach(function (t) { t.classList.remove("pick"); });
    if (row < 0) return;
    document.querySelectorAll('#source tr[data-row="' + row + '"], #asm tr[data-row="' + row + '"]')
      .forEach(function (t) { t.classList.add("pick"); });
  }
  $("source").addEventListener("click", function (e) {
    var tr = e.target.closest("tr[data-row]");
    if (!tr) return;
    pickRows(+tr.getAttribute("data-row"));
    reveal($("asm"), $("asm").querySelector("tr.pick"));
  });
  $("asm").addEventListener("click", function (e) {
    var tr = e.target.closest("tr[data-row]");
    if (!tr) return;
    pickRows(+tr.getAttribute("data-row"));
    reveal($("source"), $("source").querySelector("tr.pick"));
  });

  /* the diff */
  var df = { table: null };
  function drawDiff() {
    var note = $("diff-note"), sec = $("view-diff");
    clearEl(note);
    if (!diff) {
      $("diff").hidden = true;
      note.appendChild(document.createTextNode("The diff compares two recordings: "));
      note.appendChild(el("code", null, "ebs view -i base.data -i new.data"));
      note.appendChild(document.createTextNode(" (as ebs diff base.data new.data)."));
      return;
    }
    var n1 = sideN[0], n2 = sideN[1], rows = [], j, m = matcher(searchText());
    if (!n1 || !n2) {
      $("diff").hidden = true;
      note.textContent = "Nothing to compare: the " + (!n1 ? "base" : "new") + " recording has no samples in the selection.";
      return;
    }
    $("diff").hidden = false;
    for (j = 0; j < NK; j++) if (sideSelf[0][j] || sideSelf[1][j]) rows.push({ k: j, t: twoProp(sideSelf[0][j], n1, sideSelf[1][j], n2) });
    var adj = holm(rows.map(function (r) { return r.t.p; })), alpha = diff.alpha, nsig = 0;
    rows.forEach(function (r, i) {
      r.adj = adj[i];
      r.sig = r.adj <= alpha;
      nsig += r.sig;
    });
    rows.sort(function (a, b) {
      if (a.sig !== b.sig) return a.sig ? -1 : 1;
      var da = Math.abs(a.t.diff), db = Math.abs(b.t.diff);
      if (da !== db) return db - da;
      var ma = Math.max(a.t.p1, a.t.p2), mb = Math.max(b.t.p1, b.t.p2);
      if (ma !== mb) return mb - ma;
      var fa = keyFunc[a.k], fb = keyFunc[b.k];
      return cmpStr(diffName(fa, keyInto[a.k]), diffName(fb, keyInto[b.k])) || cmpStr(fDso[fa], fDso[fb]);
    });
    var shown = m ? rows.filter(function (r) { return m(diffName(keyFunc[r.k], keyInto[r.k])); }) : rows;
    note.textContent = count(rows.length, "function") + " compared: base " + count(n1, "sample") + " (" +
      String(recs[diff.base] ? recs[diff.base].file : "") + "), new " + count(n2, "sample") + " (" +
      String(recs[diff.new] ? recs[diff.new].file : "") + "); " + nsig + " significant (\u2731) at family-wise alpha " +
      alpha + " (pooled two-proportion z-test, Holm; Newcombe's 95% interval)";
    var maxd = 0;
    rows.forEach(function (r) { maxd = Math.max(maxd, Math.abs(r.t.diff)); });
    if (!df.table)
      df.table = new LazyTable($("diff"), sec.querySelector(".more"), function (r) {
        var f = keyFunc[r.k], into = keyInto[r.k], tr = el("tr");
        tr.setAttribute("data-func", String(f));
        tr.setAttribute("data-name", diffName(f, into)); // ebs diff's "name"
        if (into >= 0) tr.setAttribute("data-into", String(into));
        tr.setAttribute("data-base", String(sideSelf[0][r.k]));
        tr.setAttribute("data-new", String(sideSelf[1][r.k]));
        tr.setAttribute("data-delta", fixedC(100 * r.t.diff, 4));
        tr.setAttribute("data-lo", fixedC(100 * r.t.lo, 4));
        tr.setAttribute("data-hi", fixedC(100 * r.t.hi, 4));
        tr.setAttribute("data-p", String(r.adj));
        tr.setAttribute("data-significant", r.sig ? "1" : "0");
        if (r.sig) tr.classList.add("sig");
        var tn = el("td", "name");
        if (f >= 0) funcCell(tn, f);
        if (into >= 0 || f < 0) {
          tn.classList.remove("inl");
          tn.textContent = diffName(f, into);
          tn.title = tn.textContent;
        }
        tr.appendChild(tn);
        tr.appendChild(el("td", "dso", f >= 0 ? fDso[f] : ""));
        tr.appendChild(el("td", "num", pctText(100 * r.t.p1)));
        tr.appendChild(el("td", "num", pctText(100 * r.t.p2)));
        var d = 100 * r.t.diff, tdd = el("td", "num " + (d > 0 ? "up" : d < 0 ? "down" : ""), (d > 0 ? "+" : "") + d.toFixed(2));
        if (r.sig) tdd.style.background = d > 0 ? "rgba(227,26,28," + (0.08 + 0.3 * Math.abs(r.t.diff) / (df.maxd || 1)) + ")" :
          "rgba(27,122,58," + (0.08 + 0.3 * Math.abs(r.t.diff) / (df.maxd || 1)) + ")";
        tr.appendChild(tdd);
        tr.appendChild(el("td", "ci", "[" + (100 * r.t.lo).toFixed(2) + ", " + (100 * r.t.hi).toFixed(2) + "]"));
        tr.appendChild(el("td", "num p", r.adj < 1e-4 ? "<0.0001" : r.adj.toFixed(4))); // as ebs diff prints p
        tr.appendChild(el("td", "sig"));
        return tr;
      });
    df.maxd = maxd;
    df.table.set(shown);
  }

  /* ---- navigation, keyboard --------------------------------------------------------- */

  var VIEWS = ["summary", "bottomup", "topdown", "callers", "flame", "source", "diff"];
  document.querySelectorAll("#nav button").forEach(function (b) {
    b.addEventListener("click", function () { V.show(b.getAttribute("data-view")); });
  });
  $("clear-selection").addEventListener("click", function () { V.clear(); });
  document.querySelectorAll("#bottomup th[data-sort]").forEach(function (th) {
    th.addEventListener("click", function () {
      var k = th.getAttribute("data-sort");
      if (bu.sort === k) bu.dir = -bu.dir;
      else {
        bu.sort = k;
        bu.dir = k === "name" || k === "dso" ? 1 : -1;
      }
      dirty.bottomup = true;
      drawView();
    });
  });
  function rowClick(table) {
    return function (e) {
      var tr = e.target.closest("tr[data-func]");
      if (!tr) return;
      setCursor(tr);
      st.func = +tr.getAttribute("data-func");
      dirty.callers = dirty.source = true;
      markPicked();
    };
  }
  $("bottomup").addEventListener("click", rowClick());
  $("diff").addEventListener("click", rowClick());
  $("bottomup").addEventListener("dblclick", function (e) {
    var tr = e.target.closest("tr[data-func]");
    if (!tr) return;
    st.func = +tr.getAttribute("data-func");
    dirty.callers = dirty.source = true;
    V.show(chains ? "callers" : "source");
  });
  // the search filters at once (a few thousand names: well under a frame)
  $("search").addEventListener("input", function () {
    dirty.bottomup = dirty.diff = true;
    if (this.value && st.view !== "bottomup" && st.view !== "diff") V.show("bottomup");
    else drawView();
  });
  function setCursor(tr) {
    document.querySelectorAll(".cursor").forEach(function (t) { t.classList.remove("cursor"); });
    if (!tr) return;
    tr.classList.add("cursor");
    tr.scrollIntoView({ block: "nearest" });
  }
  function cursorRows() {
    var v = st.view;
    if (v === "bottomup") return $("bottomup").tBodies[0].rows;
    if (v === "diff") return $("diff").tBodies[0].rows;
    if (v === "callers") return document.querySelectorAll("#callers tbody tr, #callees tbody tr");
    if (v === "topdown") return document.querySelectorAll("#topdown .trow[data-node]");
    return null;
  }
  document.addEventListener("keydown", function (e) {
    var tgt = e.target, typing = tgt && (tgt.tagName === "INPUT" || tgt.tagName === "SELECT");
    if (e.key === "Escape") {
      if (typing && tgt.value) {
        tgt.value = "";
        tgt.dispatchEvent(new Event("input"));
      } else if ($("search").value) {
        $("search").value = "";
        $("search").dispatchEvent(new Event("input"));
      } else if (st.view === "flame" && fl.zoom) {
        fl.zoom = 0;
        drawFlame();
      } else {
        V.clear();
      }
      if (typing) tgt.blur();
      return;
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key >= "1" && e.key <= "7") {
      V.show(VIEWS[+e.key - 1]);
      e.preventDefault();
    } else if (e.key === "/") {
      e.preventDefault();
      (st.view === "flame" ? $("flame-search") : $("search")).focus();
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp" || e.key === "Enter" || e.key === "ArrowLeft" ||
               e.key === "ArrowRight") {
      var rows = cursorRows();
      if (!rows || !rows.length) return;
      var cur = -1, j;
      for (j = 0; j < rows.length; j++) if (rows[j].classList.contains("cursor")) { cur = j; break; }
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        j = e.key === "ArrowDown" ? Math.min(rows.length - 1, cur + 1) : Math.max(0, cur - 1);
        if (st.view === "bottomup" && j >= rows.length - 1 && bu.table) bu.table.grow(300);
        setCursor(rows[j]);
        if (st.view === "topdown") td.cursor = +rows[j].getAttribute("data-node");
        return;
      }
      if (cur < 0) return;
      var row = rows[cur];
      if (st.view === "topdown" && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
        var n = +row.getAttribute("data-node");
        if (e.key === "ArrowRight") td.open.add(n);
        else td.open.delete(n);
        drawTopDown();
        return;
      }
      if (e.key === "Enter") {
        var f = +row.getAttribute("data-func");
        if (f >= 0) {
          st.func = f;
          dirty.callers = dirty.source = true;
          V.show(st.view === "callers" ? "source" : "callers");
        }
      }
    }
  });
  var resizeTimer = 0;
  function headHeight() {
    document.documentElement.style.setProperty("--head", $("top").offsetHeight + "px");
  }
  window.addEventListener("resize", function () {
    headHeight();
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      if (st.view === "flame") {
        dirty.flame = true;
        drawView();
      }
    }, 100);
  });

  /* ---- the first draw --------------------------------------------------------------- */

  V.timings.parse_ms = performance.now() - T0;
  var first = recs[0] || {};
  // "a vs b" only where the diff view compares them; else the recordings are merged: "a + b + c"
  $("title-file").textContent = recs.map(function (r) { return String(r.file || ""); }).join(D.diff ? " vs " : " + ");
  var cmd = String(first.cmdline || first.command || "").split(/\s+/).map(function (w) {
    return /^\.{0,2}\/.*[^\/]$/.test(w) ? w.replace(/^.*\//, "") : w; // a path: its last part
  }).join(" ").trim();
  if (cmd.length > 60) cmd = cmd.substring(0, 59) + "\u2026";
  document.title = "ebs view: " + recs.map(function (r) { return String(r.file || ""); }).join(D.diff ? " vs " : " + ") +
    (cmd ? " (" + cmd + ")" : "");
  var evSel = $("event");
  events.forEach(function (e, j) {
    var o = el("option", null, String(e));
    o.value = String(j);
    evSel.appendChild(o);
  });
  $("event-box").hidden = events.length < 2;
  evSel.addEventListener("change", function () { V.event(+evSel.value); });
  if (!diff) document.querySelector('#nav button[data-view="diff"]').title = "7: needs two recordings";
  buildTimeline();
  headHeight();
  V.show("summary");
  update();
  V.timings.update_ms = 0;
  V.timings.draw_ms = performance.now() - T0 - V.timings.parse_ms;
  V.ready = true;
  // the flame graph's frames, made while the page is idle (not at its first show)
  (window.requestIdleCallback || setTimeout)(function () {
    if (!FR) buildFrames();
  });
})();
