// The celltrace task pane: read the selection, stream the question to the local server, show the
// steps, answer, evidence and trace picture, and replay the answer's actions in the workbook.
// All text from the server or the workbook goes into the page as textContent, never as HTML.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  function show(id, visible) {
    $(id).hidden = !visible;
  }

  function setError(message) {
    $("error").textContent = message || "";
    show("error", Boolean(message));
  }

  function addStep(message) {
    const steps = $("steps");
    for (const li of steps.querySelectorAll("li.running")) li.classList.remove("running");
    const li = document.createElement("li");
    li.textContent = message;
    li.className = "running";
    steps.appendChild(li);
  }

  function finishSteps() {
    for (const li of $("steps").querySelectorAll("li.running")) li.classList.remove("running");
  }

  function answerLine(result) {
    if (typeof result.answer === "string") return result.answer; // long form
    if (result.status === "answered") return result.answer.join("; ");
    if (result.status === "abstained" && result.answer.length) {
      return "Best guess (low confidence): " + result.answer.join("; ") + (result.error ? " — " + result.error : "");
    }
    if (result.status === "abstained") return "Not sure — no answer" + (result.error ? ": " + result.error : ".");
    return "Failed: " + (result.error || "unknown error");
  }

  function metaLine(result) {
    const parts = [];
    if (result.unit) parts.push("unit: " + result.unit);
    if (typeof result.confidence === "number") parts.push("confidence: " + Math.floor(result.confidence * 100 + 1e-9) + "%");
    if (result.engine) parts.push("engine: " + result.engine);
    if (result.usage) parts.push(result.usage.llm_calls + " LLM call(s)");
    if (typeof result.seconds === "number") parts.push(result.seconds.toFixed(1) + " s");
    return parts.join(" · ");
  }

  function renderResult(result) {
    const answer = $("answer");
    answer.textContent = answerLine(result);
    answer.className = "answer " + result.status;
    $("answer-meta").textContent = metaLine(result);
    const list = $("evidence");
    list.replaceChildren();
    for (const cell of result.evidence || []) {
      const li = document.createElement("li");
      const role = document.createElement("span");
      role.className = "role " + cell.role;
      role.textContent = cell.role;
      const link = document.createElement("a");
      link.textContent = cell.sheet + "!" + cell.address;
      link.title = "select " + cell.address;
      link.addEventListener("click", () =>
        celltraceExcel.selectCell(cell.sheet, cell.address).catch((e) => setError(e.message))
      );
      const text = document.createElement("span");
      text.textContent = "  " + cell.text;
      li.append(role, link, text);
      list.appendChild(li);
    }
    const picture = $("picture");
    if (result.picture) {
      picture.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(result.picture);
      picture.hidden = false;
    } else {
      picture.removeAttribute("src");
      picture.hidden = true;
    }
    show("result", true);
  }

  async function onAsk() {
    const question = $("question").value.trim();
    if (!question) {
      setError("Type a question first.");
      return;
    }
    setError("");
    $("steps").replaceChildren();
    show("result", false);
    show("progress", true);
    $("ask").disabled = true;
    try {
      addStep("Reading the selected table…");
      const table = await celltraceExcel.readTable(null);
      const where = table.origin.sheet + "!" + table.origin.address;
      $("steps").lastChild.textContent = "Read " + where + " (" + table.cells.length + " rows, " + table.merges.length + " merged areas).";
      const long = $("long").checked;
      const onStep = (event) => addStep(event.message);
      const body = { cells: table.cells, values: table.values, merges: table.merges, origin: table.origin };
      const answerCell = $("answer-cell").value.trim() || null;
      const result = long
        ? await celltraceApi.longform(question, body, onStep)
        : await celltraceApi.ask(question, body, $("engine").value, onStep, answerCell);
      finishSteps();
      renderResult(result);
      const report = await celltraceExcel.applyActions(result.actions || []);
      if (report.skipped.length) addStep("Note: " + report.skipped.join("; "));
      addStep("Highlighted " + (result.evidence || []).length + " evidence area(s) in the workbook.");
      finishSteps();
    } catch (exc) {
      finishSteps();
      setError(exc.message || String(exc));
      if (exc.code === "unauthorized") askForToken();
    } finally {
      $("ask").disabled = false;
    }
  }

  // The server wants a token the pane does not have (or a wrong one): open Settings at the field.
  function askForToken() {
    $("settings").open = true;
    $("token").focus();
  }

  async function onClear() {
    setError("");
    try {
      const report = await celltraceExcel.clearAll();
      $("server-status").textContent = "Cleared: " + report.restored + " cell(s) restored.";
    } catch (exc) {
      setError(exc.message || String(exc));
    }
  }

  async function checkServer() {
    try {
      const response = await fetch("/v1/health");
      const health = await response.json();
      $("server-status").textContent = "server " + health.version + " · engines: " + health.engines.join(", ");
    } catch (_) {
      $("server-status").textContent = "server not reachable";
    }
  }

  function start() {
    $("token").value = celltraceApi.token();
    $("ask").addEventListener("click", onAsk);
    $("clear").addEventListener("click", onClear);
    $("picture").addEventListener("click", () => $("picture").classList.toggle("fit"));
    $("save-token").addEventListener("click", () => {
      celltraceApi.setToken($("token").value.trim());
      $("server-status").textContent = "Token saved.";
      $("settings").open = false;
      setError("");
    });
    checkServer();
  }

  // Office may be ready before the page is parsed: start when both are.
  Office.onReady(() => {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  });
})();
