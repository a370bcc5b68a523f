// Switching views from code (e.g. a correlation peak opens the File view): the hash route, which App.vue
// follows.

export function goToView(id: string): void {
  const hash = `#/${id}`;
  if (window.location.hash !== hash) window.location.hash = hash;
}
