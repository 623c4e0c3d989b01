// =CELLTRACE.ASK(question, range, [details]): the worksheet function (metadata: functions.json).
// It runs in the task pane's shared runtime, so it reads the range's text and merged areas through
// the same reader as the pane. A function can only return its value: highlighting stays in the pane.
"use strict";

const celltraceFunctions = (() => {
  function answerText(result) {
    if (result.status === "answered") return result.answer.join("; ");
    // as shared/actions.py answer_text: the best guess stays visible, marked as an abstention
    const guess = result.answer && result.answer.length ? " (best guess: " + result.answer.join("; ") + ")" : "";
    return "#ABSTAINED" + guess + (result.error ? ": " + result.error : "");
  }

  function evidenceRef(result) {
    const cell = (result.evidence || []).find((e) => e.role === "answer");
    return cell ? cell.sheet + "!" + cell.address : "";
  }

  // The table of the `range` argument: read from the sheet when Excel passed its address
  // (text, values, merged areas), else built from the values alone.
  async function tableOf(range, invocation) {
    const address = invocation && invocation.parameterAddresses ? invocation.parameterAddresses[1] : null;
    if (address) {
      const table = await celltraceExcel.readTable(address);
      return { cells: table.cells, values: table.values, merges: table.merges, origin: table.origin };
    }
    return { cells: range.map((row) => row.map((v) => (v === null ? "" : String(v)))), values: range };
  }

  async function ask(question, range, details, invocation) {
    let result;
    try {
      result = await celltraceApi.askQuiet(String(question), await tableOf(range, invocation));
    } catch (exc) {
      throw new CustomFunctions.Error(CustomFunctions.ErrorCode.notAvailable, exc.message || String(exc));
    }
    if (result.status === "failed") {
      throw new CustomFunctions.Error(CustomFunctions.ErrorCode.notAvailable, result.error || "celltrace failed");
    }
    const text = answerText(result);
    if (!details) return [[text]];
    const value = result.value === undefined || result.value === null ? "" : result.value;
    const confidence = typeof result.confidence === "number" ? result.confidence : "";
    return [[text, value, result.unit || "", confidence, evidenceRef(result)]];
  }

  if (typeof CustomFunctions !== "undefined") CustomFunctions.associate("ASK", ask);
  return { ask, answerText };
})();
