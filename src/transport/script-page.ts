/** What a page that is all script needs: its title, what it says without JavaScript, and its files in order. */
export interface ScriptPage {
  title: string;
  /** Markup for the page's head after its title (icons, style sheets); the page's own strings are escaped by their makers. */
  head?: string;
  bodyAttributes?: string;
  noscript: string;
  /** The id of the element the scripts render into. */
  root: string;
  scripts: readonly string[];
}

/**
 * The HTML shell of GraphiQL and of the API reference: every script a file of this server (HashedAssets), none
 * inline, so that both pages run under `script-src 'self'`.
 */
export function scriptPage(page: ScriptPage): string {
  const scripts = page.scripts.map((src) => `    <script src="${src}"></script>`).join("\n");
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${page.title}</title>${page.head ? `\n    ${page.head}` : ""}
  </head>
  <body${page.bodyAttributes ? ` ${page.bodyAttributes}` : ""}>
    <noscript>${page.noscript}</noscript>
    <div id="${page.root}"></div>
${scripts}
  </body>
</html>
`;
}
