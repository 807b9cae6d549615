/**
 * Chromium-based apps expose their web content to the accessibility tree only when started with
 * `--force-renderer-accessibility` (without it, a page is one empty document). A private
 * desktop's app command that starts one gets the flag, right after the program's name.
 */

/** Program names of Chromium-based browsers and shells. */
const CHROMIUM_BASED = /^(chromium|chromium-browser|chrome|google-chrome(-stable|-beta|-unstable)?|brave(-browser)?|microsoft-edge(-stable|-beta|-dev)?|vivaldi(-stable)?|opera|electron\d*)$/;

export const RENDERER_ACCESSIBILITY_FLAG = '--force-renderer-accessibility';

/**
 * The command with the flag added when its program is Chromium-based; as it is otherwise (or when
 * it already has it). Leading `VAR=value` words and an `exec` are passed over to find the program.
 */
export function withRendererAccessibility(command: string): string {
  if (command.includes(RENDERER_ACCESSIBILITY_FLAG)) return command;
  const words = /^(\s*(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)*(?:exec\s+)?)(\S+)(.*)$/s.exec(command);
  if (!words) return command;
  const [, prefix = '', program = '', rest = ''] = words;
  const base = program.replace(/^['"]|['"]$/g, '').split('/').pop() ?? '';
  if (!CHROMIUM_BASED.test(base)) return command;
  return `${prefix}${program} ${RENDERER_ACCESSIBILITY_FLAG}${rest}`;
}
