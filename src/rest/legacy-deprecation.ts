import type { Deprecation } from "./router.ts";

/**
 * The deprecated workspace-scoped collection routes: dates from the API specification ("Versioning"). A module of
 * its own, light: the server that answers while the service starts announces it too.
 */
export const LEGACY_DEPRECATION: Deprecation = {
  sunset: new Date("2026-06-30T23:59:59Z"),
  link: "/docs/migration",
  warning: "Deprecated: use /api/v1/memory (user-scoped through the API key); see /docs/migration",
};

/** The legacy collection's path: every method on it is on its way out. */
export const LEGACY_COLLECTION = "/api/v1/memories";

/** The headers every answer of a deprecated route carries, errors included. */
export const deprecationHeaders = ({ sunset, link, warning }: Deprecation): Record<string, string> => ({
  deprecation: "true",
  sunset: sunset.toUTCString(),
  link: `<${link}>; rel="deprecation"`,
  "x-api-warn": warning,
});
