// VS Code renders `$(name)` in a status bar text and in quick-pick lines as an icon. Names that come
// from the data or the workspace (record ids, field paths, run and suite names, messages quoting
// values) must show as they are typed, not as icons a file chose. Pure, so it is unit-tested.

/** `text` with every `$(name)` escaped (`\$(name)`), as VS Code's own escapeIcons does. */
export function escapeIcons(text: string): string {
  return text.replace(/(\\)?\$\([a-z0-9-]+?(?:~[a-z0-9-]*?)?\)/gi, (match, escaped: string | undefined) => (escaped ? match : `\\${match}`));
}
