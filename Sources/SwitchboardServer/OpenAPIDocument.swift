/// The OpenAPI 3.1 description of the HTTP API, served at `/openapi.json` (the one
/// copy in the repository; `OpenAPITests` validates it).
enum OpenAPIDocument {
    static let bytes: [UInt8] = Array(json.utf8)

    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Switchboard",
    "version": "1.0.0",
    "description": "Route resolution for mobile apps: URL in, destination screen, params and presentation out. The route manifest is served versioned with ETags."
  },
  "servers": [{ "url": "http://127.0.0.1:8080" }],
  "paths": {
    "/v1/resolve": {
      "get": {
        "operationId": "resolve",
        "summary": "Resolve one URL",
        "parameters": [
          { "name": "url", "in": "query", "required": true, "schema": { "type": "string", "pattern": "^[^\\u0000]*$" }, "description": "The URL to resolve, form-encoded (send + as %2B). A NUL byte is a 400." },
          { "name": "platform", "in": "query", "schema": { "type": "string" }, "description": "ios, android or web" },
          { "name": "idiom", "in": "query", "schema": { "type": "string" }, "description": "phone or tablet" },
          { "name": "appVersion", "in": "query", "schema": { "type": "string", "pattern": "^[0-9]{1,9}(\\.[0-9]{1,9}){0,2}(-[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?(\\+[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?$" } },
          { "name": "explain", "in": "query", "schema": { "type": "string", "enum": ["1", "0", "true", "false", "yes", "no", "", "near"] }, "description": "near: also the routes that almost matched (at most 10, closest first)" }
        ],
        "responses": {
          "200": { "description": "The result", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Result" } } } },
          "400": { "$ref": "#/components/responses/Problem" },
          "414": { "$ref": "#/components/responses/Problem" },
          "431": { "$ref": "#/components/responses/Problem" }
        }
      },
      "post": {
        "operationId": "resolveBatch",
        "summary": "Resolve up to 10,000 URLs in order",
        "requestBody": {
          "required": true,
          "content": { "application/json": { "schema": { "$ref": "#/components/schemas/BatchRequest" } } }
        },
        "responses": {
          "200": { "description": "Results in the order of the URLs", "content": { "application/json": { "schema": {
            "type": "object", "required": ["results"], "additionalProperties": false,
            "properties": { "results": { "type": "array", "items": { "$ref": "#/components/schemas/Result" } } } } } } },
          "400": { "$ref": "#/components/responses/Problem" },
          "408": { "$ref": "#/components/responses/Problem" },
          "413": { "$ref": "#/components/responses/Problem" },
          "431": { "$ref": "#/components/responses/Problem" }
        }
      }
    },
    "/v1/manifest": {
      "get": {
        "operationId": "manifest",
        "summary": "The manifest as clients consume it (canonical JSON, or the echo format)",
        "description": "With If-None-Match naming the manifest in service and Prefer: wait=N (RFC 7240, N seconds from 1 to 300, more read as 300), the request is held until another manifest is in service (200 with it) or N seconds and a random extra of up to N/16 pass (304); both answers carry Preference-Applied and close the connection. A stale ETag gets the current manifest at once.",
        "parameters": [
          { "name": "format", "in": "query", "schema": { "type": "string", "enum": ["canonical", "echo"] } },
          { "name": "If-None-Match", "in": "header", "schema": { "type": "string" } },
          { "name": "If-Modified-Since", "in": "header", "schema": { "type": "string" } },
          { "name": "Prefer", "in": "header", "description": "wait=N: hold a matching conditional request up to N seconds", "schema": { "type": "string" } }
        ],
        "responses": {
          "200": {
            "description": "The manifest (after a held request: a new one)",
            "headers": {
              "ETag": { "schema": { "type": "string", "pattern": "^\"sha256-[0-9a-f]{64}\"$" } },
              "X-Manifest-Version": { "schema": { "type": "string" } },
              "Cache-Control": { "schema": { "type": "string" } },
              "Vary": { "schema": { "type": "string" } },
              "Preference-Applied": { "description": "wait=N when the request was held", "schema": { "type": "string", "pattern": "^wait=[0-9]+$" } }
            },
            "content": { "application/json": { "schema": { "type": "object" } } }
          },
          "304": {
            "description": "The client's copy is current (after a held request: still current after the wait)",
            "headers": { "Preference-Applied": { "schema": { "type": "string", "pattern": "^wait=[0-9]+$" } } }
          },
          "400": { "$ref": "#/components/responses/Problem" }
        }
      }
    },
    "/v1/routes": {
      "get": {
        "operationId": "routes",
        "summary": "The route table in the order precedence tries it, one entry per pattern expansion",
        "responses": { "200": { "description": "The table", "content": { "application/json": { "schema": {
          "type": "object", "required": ["manifest", "routes"],
          "properties": {
            "manifest": { "type": "object", "required": ["version", "etag"] },
            "routes": { "type": "array", "items": { "type": "object",
              "required": ["order", "host", "path", "route", "index", "pattern", "destination", "presentation", "redirect", "notes"],
              "properties": {
                "order": { "type": "integer" }, "host": { "type": ["string", "null"] }, "path": { "type": "string" },
                "route": { "type": "string" }, "index": { "type": "integer" }, "pattern": { "type": "string" },
                "destination": { "type": ["string", "null"] }, "presentation": { "type": ["string", "null"] },
                "redirect": { "type": ["string", "null"] }, "notes": { "type": "array", "items": { "type": "string" } } } } } } } } } } }
      }
    },
    "/v1/validate": {
      "post": {
        "operationId": "validate",
        "summary": "Check a cases text (the validate format) against the manifest in service",
        "requestBody": { "required": true, "content": { "text/plain": { "schema": { "type": "string", "minLength": 1,
          "description": "One case a line: URL, URL [platform=ios appVersion=7.1.0] or either followed by -> Destination (fallback, external, rejected); blank lines and # comments skipped. The pattern is the subset without contexts or comments.",
          "pattern": "^(?:[ \\t]*(?:[!\"$-=?-~]+(?: -> [!\"$-=?-~]+)?)?[ \\t]*\\n)*[ \\t]*(?:[!\"$-=?-~]+(?: -> [!\"$-=?-~]+)?)?[ \\t]*$" } } } },
        "responses": {
          "200": { "description": "Each case with its outcome, totals and route coverage", "content": { "application/json": { "schema": {
            "type": "object", "required": ["passed", "failed", "cases", "coverage", "manifest"],
            "properties": {
              "passed": { "type": "integer" }, "failed": { "type": "integer" },
              "cases": { "type": "array", "items": { "type": "object", "required": ["line", "case", "url", "expected", "passed", "outcome"] } },
              "coverage": { "type": "object" }, "manifest": { "type": "object" } } } } } },
          "400": { "$ref": "#/components/responses/Problem" },
          "408": { "$ref": "#/components/responses/Problem" },
          "413": { "$ref": "#/components/responses/Problem" },
          "431": { "$ref": "#/components/responses/Problem" }
        }
      }
    },
    "/": {
      "get": {
        "operationId": "explorer",
        "summary": "The route explorer page (absent with serve --no-ui)",
        "responses": {
          "200": { "description": "The page", "content": { "text/html": { "schema": { "type": "string" } } } },
          "304": { "description": "Not modified" },
          "404": { "$ref": "#/components/responses/Problem" }
        }
      }
    },
    "/ui/{file}": {
      "get": {
        "operationId": "explorerFile",
        "summary": "The explorer's style and script",
        "parameters": [{ "name": "file", "in": "path", "required": true, "schema": { "enum": ["explorer.css", "explorer.js"] } }],
        "responses": {
          "200": { "description": "The file", "content": { "text/css": { "schema": { "type": "string" } }, "text/javascript": { "schema": { "type": "string" } } } },
          "304": { "description": "Not modified" },
          "404": { "$ref": "#/components/responses/Problem" }
        }
      }
    },
    "/v1/events": {
      "get": {
        "operationId": "events",
        "summary": "Server-Sent Events: a manifest event on connect and on every new manifest, reload-failed when a file is refused, a comment every 15 s",
        "parameters": [
          { "name": "Last-Event-ID", "in": "header", "description": "The ETag last seen: when it names the manifest in service, no first event", "schema": { "type": "string" } }
        ],
        "responses": {
          "200": {
            "description": "An endless text/event-stream: `retry: <ms>`, then events `manifest` (id: the ETag; data: {version, etag, updatedAt, loadedAt, routes}) and `reload-failed` (data: {error, at})",
            "headers": {
              "Cache-Control": { "schema": { "const": "no-cache" } },
              "X-Accel-Buffering": { "schema": { "const": "no" } }
            },
            "content": { "text/event-stream": { "schema": { "type": "string" } } }
          }
        }
      }
    },
    "/healthz": {
      "get": {
        "operationId": "health",
        "responses": { "200": { "description": "Serving", "content": { "application/json": { "schema": {
          "type": "object", "required": ["status"], "properties": { "status": { "const": "ok" } } } } } } }
      }
    },
    "/readyz": {
      "get": {
        "operationId": "readiness",
        "responses": { "200": { "description": "A manifest is in service", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Readiness" } } } } }
      }
    },
    "/metrics": {
      "get": {
        "operationId": "metrics",
        "responses": { "200": { "description": "Prometheus text format", "content": { "text/plain": { "schema": { "type": "string" } } } } }
      }
    },
    "/openapi.json": {
      "get": {
        "operationId": "openapi",
        "responses": { "200": { "description": "This document", "content": { "application/json": { "schema": { "type": "object" } } } } }
      }
    }
  },
  "components": {
    "responses": {
      "Problem": { "description": "RFC 9457 problem details", "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } } }
    },
    "schemas": {
      "Problem": {
        "type": "object",
        "required": ["type", "title", "status", "detail"],
        "properties": {
          "type": { "type": "string" }, "title": { "type": "string" }, "status": { "type": "integer" }, "detail": { "type": "string" },
          "offset": { "type": "integer", "description": "Byte offset of a JSON syntax error" },
          "pointer": { "type": "string", "description": "JSON pointer of a wrong field" }
        }
      },
      "Presentation": {
        "type": "object", "required": ["style"],
        "properties": { "style": { "enum": ["push", "modal", "sheet", "replace", "tab", "web", "external"] } }
      },
      "Result": {
        "type": "object",
        "required": ["url", "status", "manifest"],
        "properties": {
          "url": { "type": "string" },
          "status": { "enum": ["matched", "fallback", "external", "rejected"] },
          "reason": { "type": "string" },
          "route": { "type": "object", "required": ["name", "pattern"], "properties": { "name": { "type": "string" }, "pattern": { "type": "string" } } },
          "destination": { "type": "string" },
          "params": { "type": "object" },
          "presentation": { "$ref": "#/components/schemas/Presentation" },
          "fragment": { "type": "string" },
          "manifest": { "type": "object", "required": ["version", "etag"], "properties": { "version": { "type": "integer" }, "etag": { "type": "string" } } },
          "explain": { "type": "object" }
        }
      },
      "BatchRequest": {
        "type": "object", "required": ["urls"], "additionalProperties": false,
        "properties": {
          "urls": { "type": "array", "description": "At most 10,000 URLs and 1 MiB of body; more is answered 413. An item is a URL, or a URL with its own context (replacing the batch's).",
            "items": { "oneOf": [
              { "type": "string" },
              { "type": "object", "required": ["url"], "additionalProperties": false,
                "properties": { "url": { "type": "string" }, "context": { "$ref": "#/components/schemas/Context" } } }
            ] } },
          "context": { "$ref": "#/components/schemas/Context" },
          "explain": { "oneOf": [{ "type": "boolean" }, { "const": "near" }] }
        }
      },
      "Context": {
        "type": "object", "additionalProperties": false, "properties": {
          "platform": { "type": "string" }, "idiom": { "type": "string" },
          "appVersion": { "type": "string", "pattern": "^[0-9]{1,9}(\\.[0-9]{1,9}){0,2}(-[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?(\\+[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?$" } }
      },
      "Readiness": {
        "type": "object",
        "required": ["status", "version", "etag", "loadedAt", "lastReloadError"],
        "properties": {
          "status": { "const": "ready" }, "version": { "type": "integer" }, "etag": { "type": "string" },
          "loadedAt": { "type": "string" }, "routes": { "type": "integer" }, "reloads": { "type": "integer" },
          "reloadFailures": { "type": "integer" }, "lastReloadError": { "type": ["string", "null"] }
        }
      }
    }
  }
}
"""#
}
