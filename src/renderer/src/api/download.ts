/** Saves what a URL holds as a file the user downloads (a link with `download`, clicked): the page stays where it is. */
export function saveDownload(url: string, filename: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
}
