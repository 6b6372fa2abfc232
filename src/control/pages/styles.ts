/** The dashboard's stylesheet, served as a file so the CSP needs no 'unsafe-inline'. */
export const dashboardCss = `
:root { font: 14px/1.45 system-ui, sans-serif; color: #1d2433; background: #f5f6f8; }
body { margin: 0; }
header { background: #1d2433; color: #fff; padding: 10px 20px; display: flex; gap: 16px; align-items: center; }
header h1 { font-size: 16px; margin: 0; }
header a { color: #cfd8ff; }
main { padding: 12px 20px 40px; display: grid; gap: 14px; }
section { background: #fff; border: 1px solid #dfe3ea; border-radius: 6px; padding: 10px 14px; overflow-x: auto; }
h2 { font-size: 15px; margin: 4px 0 8px; }
h3 { font-size: 13px; margin: 12px 0 6px; color: #3b4560; }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eef0f4; vertical-align: top; }
th { color: #5a6480; font-weight: 600; }
td { font-variant-numeric: tabular-nums; }
button { font: inherit; font-size: 12px; padding: 2px 8px; margin: 0 2px; border: 1px solid #aab3c8; border-radius: 4px; background: #f0f3fa; cursor: pointer; }
button:hover { background: #e0e7f7; }
.clock { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 4px 0; }
.badge { background: #ffe9b3; border-radius: 3px; padding: 0 6px; font-size: 12px; }
.muted { color: #7a849c; font-weight: normal; }
.empty { color: #7a849c; margin: 2px 0 6px; }
a.selected { font-weight: 700; }
ol.attempts { margin: 0; padding-left: 18px; }
#status { color: #a32020; margin: 8px 20px 0; }
#status:empty { display: none; }
[data-testid="journal-rows"] tr { cursor: pointer; }
[data-testid="journal-rows"] tr:hover, [data-testid="journal-rows"] tr:focus { background: #eef3ff; outline: none; }
.request-detail { margin-top: 10px; border-top: 2px solid #dfe3ea; padding-top: 8px; }
.detail-head { display: flex; justify-content: space-between; align-items: center; gap: 8px; }
.detail-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 8px 14px; }
.detail-grid pre { margin: 0; max-height: 280px; overflow: auto; background: #f5f6f8; border: 1px solid #eef0f4; border-radius: 4px; padding: 6px 8px; font-size: 12px; white-space: pre-wrap; word-break: break-all; }
ul.plain { margin: 0; padding: 0; list-style: none; }
form.login { max-width: 360px; margin: 80px auto; background: #fff; padding: 20px; border-radius: 6px; border: 1px solid #dfe3ea; display: grid; gap: 8px; }
`
