// Preloaded into measured child processes: prints the process's peak RSS when it exits.
process.on('exit', () => {
  process.stderr.write(`\nBENCH_MAX_RSS_KB=${process.resourceUsage().maxRSS}\n`);
});
