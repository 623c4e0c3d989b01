// celltrace HTTP client for the task pane and =CELLTRACE.ASK(): same origin as the page, bearer
// token from the add-in's storage, Server-Sent Events parsed from the fetch body.
"use strict";

const celltraceApi = (() => {
  const TOKEN_KEY = "celltrace.token";
  const TIMEOUT_MS = 330000;

  function token() {
    return window.localStorage.getItem(TOKEN_KEY) || "";
  }

  function setToken(value) {
    if (value) window.localStorage.setItem(TOKEN_KEY, value);
    else window.localStorage.removeItem(TOKEN_KEY);
  }

  class ApiError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  function headers() {
    const h = { "Content-Type": "application/json", Accept: "text/event-stream" };
    if (token()) h.Authorization = "Bearer " + token();
    return h;
  }

  function failure(status, body) {
    const err = body && body.error ? body.error : { code: "http_" + status, message: "HTTP " + status };
    if (status === 401) err.message = "The server needs a token (CELLTRACE_TOKEN): enter it under Settings.";
    return new ApiError(err.code, err.message);
  }

  // Yields [event, data] for each complete SSE block of a streamed response.
  async function* events(response) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length) yield [event, JSON.parse(data.join("\n"))];
      }
    }
  }

  // POST `body` to a streaming route; `onStep(stepEvent)` per step; resolves with the result body.
  async function stream(route, body, onStep) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
    let response;
    try {
      response = await fetch(route, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify(body),
        signal: controller.signal,
      });
    } catch (exc) {
      clearTimeout(timer);
      throw new ApiError(
        "server_unreachable",
        "The celltrace server is not reachable. Start it with `celltrace serve --https` and reload the pane."
      );
    }
    try {
      if (!response.ok) {
        let parsed = null;
        try {
          parsed = await response.json();
        } catch (_) {
          parsed = null;
        }
        throw failure(response.status, parsed);
      }
      for await (const [event, data] of events(response)) {
        if (event === "step") onStep(data);
        else if (event === "result") return data;
        else if (event === "error") throw failure(0, data);
      }
      throw new ApiError("stream_ended", "The server closed the stream before the answer.");
    } catch (exc) {
      if (exc.name === "AbortError") throw new ApiError("timeout", "No answer within the time limit.");
      throw exc;
    } finally {
      clearTimeout(timer);
    }
  }

  function ask(question, table, engine, onStep, answerCell) {
    const body = { question, table, engine, picture: true };
    if (answerCell) body.answer_cell = answerCell;
    return stream("/v1/ask/stream", body, onStep);
  }

  // One question without progress and without a picture (the worksheet function).
  function askQuiet(question, table) {
    return stream("/v1/ask/stream", { question, table, engine: "auto" }, () => {});
  }

  function longform(question, table, onStep) {
    return stream("/v1/longform/stream", { question, table }, onStep);
  }

  return { token, setToken, ask, askQuiet, longform, ApiError };
})();
