// switchboard-client/react under Node with Debian's React 18 (node-react, node-react-dom)
// and a DOM from jsdom (node-jsdom): a component using the hooks rendered, then rendered
// again when the client adopts a new manifest and when an update fails.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const { dist } = require("./helpers");

/** A module of a Debian package, or a failure naming the package that brings it. */
function debian(name, pkg) {
  try {
    return require(name);
  } catch (e) {
    assert.fail(`${name} is missing: apt-get install ${pkg} (bash .ci/install --test), and NODE_PATH=/usr/share/nodejs for a Node that is not Debian's (${e.message.split("\n")[0]})`);
  }
}

const manifest = (version, destination) => JSON.stringify({
  version, hosts: ["artsy.net"],
  routes: [
    { name: "artwork", pattern: "/artwork/:id", destination },
    { name: "viewing-room", pattern: "/viewing-room/:id", destination: "ViewingRoom", since: "7.2.0" },
  ],
});

test("a component using the hooks shows the destination, and shows the next one when a new manifest is adopted", async () => {
  const React = debian("react", "node-react");
  const { createRoot } = debian("react-dom/client", "node-react-dom");
  const { act } = debian("react-dom/test-utils", "node-react-dom");
  const { JSDOM } = debian("jsdom", "node-jsdom");
  const { createClient } = require(path.join(dist, "index.js"));
  const { SwitchboardProvider, useResolve, useManifest, useLastFailure } = require(path.join(dist, "react.js"));

  const dom = new JSDOM("<!doctype html><div id=root></div>");
  globalThis.window = dom.window;
  globalThis.document = dom.window.document;
  globalThis.IS_REACT_ACT_ENVIRONMENT = true;

  // The server's answers, one per request.
  const answers = [];
  const fetch = async () => {
    const next = answers.shift();
    const body = new TextEncoder().encode(next.body ?? "");
    return { status: next.status, headers: { get: (name) => (next.headers ?? {})[name.toLowerCase()] ?? null }, arrayBuffer: async () => body.buffer };
  };
  const client = createClient({
    server: "https://routes.example.com", bundled: manifest(7, "Artwork"), fetch,
    context: { platform: "ios", appVersion: "7.1.0" },
  });
  assert.ok(await client.ready(2000));

  function Destination({ url }) {
    const result = useResolve(url);
    const inUse = useManifest();
    const failure = useLastFailure();
    const shown = result === null ? "none" : result.status === "matched" ? result.destination : result.status;
    return React.createElement("p", null, `v${inUse?.version} ${shown} ${failure === null ? "ok" : failure.kind}`);
  }
  const container = document.getElementById("root");
  const root = createRoot(container);
  const app = (url) => React.createElement(SwitchboardProvider, { client }, React.createElement(Destination, { url }));
  await act(async () => root.render(app("https://artsy.net/artwork/soup")));
  assert.strictEqual(container.textContent, "v7 Artwork ok");
  // The client's context (7.1.0) gates the route since 7.2.0.
  await act(async () => root.render(app("https://artsy.net/viewing-room/x")));
  assert.strictEqual(container.textContent, "v7 fallback ok");

  // A new manifest adopted: the component renders again with it.
  answers.push({ status: 200, headers: { "content-type": "application/json" }, body: manifest(8, "ArtworkV2") });
  await act(async () => root.render(app("https://artsy.net/artwork/soup")));
  await act(async () => client.refresh());
  assert.strictEqual(container.textContent, "v8 ArtworkV2 ok");
  // An update that fails: shown, the manifest in use kept.
  answers.push({ status: 503, headers: { "retry-after": "30" } });
  await act(async () => client.refresh());
  assert.strictEqual(container.textContent, "v8 ArtworkV2 status");
  await act(async () => root.unmount());
  await client.stop();
});
