import { LEGACY_DEPRECATION } from "../rest/legacy-deprecation.ts";

const sunset = LEGACY_DEPRECATION.sunset.toUTCString();

/** The guide the deprecated routes' Link header points at: from the workspace-scoped routes to the current ones. */
export const MIGRATION_GUIDE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Migrating from /api/v1/memories to /api/v1/memory</title>
<link rel="icon" href="data:,">
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
  code, pre { font: 14px/1.4 ui-monospace, monospace; background: #f4f4f6; border-radius: 4px; }
  code { padding: 0 .25em; } pre { padding: .75rem 1rem; overflow-x: auto; }
  table { border-collapse: collapse; width: 100%; } th, td { border: 1px solid #ddd; padding: .4rem .6rem; text-align: left; }
  th { background: #f4f4f6; }
</style>
</head>
<body>
<h1>Migrating from the workspace-scoped routes</h1>
<p>The collection routes <code>POST /api/v1/memories</code> and <code>GET /api/v1/memories</code> are deprecated since
15 January 2025 and sunset on <strong>${sunset}</strong>. Until a server turns sunset enforcement on they keep
working, and every response carries <code>Deprecation</code>, <code>Sunset</code>, <code>Link</code> and
<code>X-API-Warn</code> headers. The record routes <code>GET</code>, <code>PATCH</code> and <code>DELETE
/api/v1/memories/{id}</code> are current and stay.</p>

<h2>What changes</h2>
<p>Scoping comes from the API key: every memory belongs to the key's user, so requests no longer name a workspace or
a user. The current routes add threads, batch create, semantic search and hybrid recall.</p>

<h2>Routes</h2>
<table>
<tr><th>Deprecated</th><th>Current</th></tr>
<tr><td><code>POST /api/v1/memories</code></td><td><code>POST /api/v1/memory</code> (or <code>POST /api/v1/memory/batch</code> for up to 100 at once)</td></tr>
<tr><td><code>GET /api/v1/memories?workspaceId=…</code></td><td><code>GET /api/v1/memory</code> (filters: <code>type</code>, <code>tags</code>, <code>thread_id</code>, <code>is_archived</code>)</td></tr>
</table>

<h2>Fields</h2>
<table>
<tr><th>Deprecated</th><th>Current</th></tr>
<tr><td><code>kind</code></td><td><code>type</code></td></tr>
<tr><td><code>workspaceId</code></td><td>removed: scoping comes from the API key (a thread, <code>thread_id</code>, groups memories instead)</td></tr>
<tr><td><code>userId</code></td><td>removed: the owner is the key's user</td></tr>
<tr><td><code>ttlMinutes</code>, <code>ttl_expires_at</code></td><td>accepted and ignored on the legacy routes, with a warning in <code>X-API-Warn</code>; the current routes take <code>ttl_seconds</code> (<code>ttlMinutes</code> × 60) or <code>expires_at</code></td></tr>
<tr><td><code>createdAt</code>, <code>updatedAt</code></td><td><code>created_at</code>, <code>updated_at</code> (current bodies are snake_case)</td></tr>
</table>

<h2>Example</h2>
<p>Before:</p>
<pre>curl -X POST https://memory.example.com/api/v1/memories \\
  -H "Authorization: Bearer $API_KEY" -H "Content-Type: application/json" \\
  -d '{"workspaceId": "ws_1", "userId": "u_42", "content": "Prefers tea", "kind": "preference"}'</pre>
<p>After:</p>
<pre>curl -X POST https://memory.example.com/api/v1/memory \\
  -H "Authorization: Bearer $API_KEY" -H "Content-Type: application/json" \\
  -d '{"content": "Prefers tea", "type": "preference"}'</pre>
<p>Listing, before and after:</p>
<pre>curl "https://memory.example.com/api/v1/memories?workspaceId=ws_1" -H "Authorization: Bearer $API_KEY"
curl "https://memory.example.com/api/v1/memory?type=preference" -H "Authorization: Bearer $API_KEY"</pre>
<p>Memories created on the deprecated route are ordinary memories: they appear in <code>GET /api/v1/memory</code> and
are read, changed and deleted with <code>/api/v1/memories/{id}</code>.</p>
</body>
</html>
`;
