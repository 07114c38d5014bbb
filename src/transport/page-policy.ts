/**
 * The content policy of a page drawn by scripts this server serves (GraphiQL, the API reference): scripts, workers,
 * fonts, images and requests from this server only; their components set inline styles.
 */
export const SCRIPTED_PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The content policy of a page of text with its own style sheet and nothing to run or fetch (the migration guide). */
export const TEXT_PAGE_POLICY = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");
