import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { errorStatus, type ErrorCode } from "../errors.ts";

/** What Node.js's HTTP parser or its timers report of a request the service never saw. */
interface ClientError extends Error {
  code?: string;
}

/** Each refusal as a code and a message. */
function refusal({ code }: ClientError): [ErrorCode, string] {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return ["HEADERS_TOO_LARGE", "the request line and headers are over 16 KB: send a long query in a POST body"];
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return ["REQUEST_TIMEOUT", "the request did not arrive within HTTP_HEADERS_TIMEOUT_SECONDS (headers) or HTTP_REQUEST_TIMEOUT_SECONDS"];
    default:
      return ["MALFORMED_REQUEST", "the request is not well-formed HTTP/1.1"];
  }
}

/**
 * A request refused before it reaches the service, where Node.js's own answer is a bare status line (a URL over
 * its header limit came back 431 with no body): answered as every error is, `{"error": {code, message}}`, and the
 * connection closed, as Node.js does. A socket that cannot be written to, or whose response has begun, is
 * destroyed (Node.js' rule for the same event).
 */
export function answerClientError(error: ClientError, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || response?.headersSent || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const [code, message] = refusal(error);
  const status = errorStatus[code];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
