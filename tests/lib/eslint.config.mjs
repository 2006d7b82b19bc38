// ESLint's settings for the page code (templates/js/*.js; tests/cli/test_page_js.sh runs it): plain
// browser scripts that share one page, so the modules' globals (gfPage, gfFlame, gfFindings, gfGpu, gfTimelineCpu, the timeline's parts gfTimeline*) are known,
// and the mistakes that break a page quietly (an undefined or unused name, a redeclaration) are errors.
const browser = Object.fromEntries(['window', 'document', 'location', 'history', 'console', 'navigator', 'performance',
  'setTimeout', 'clearTimeout', 'requestAnimationFrame', 'atob', 'Blob', 'Response', 'DecompressionStream', 'Image',
  'getComputedStyle', 'matchMedia', 'ResizeObserver'].map((k) => [k, 'readonly']));
export default [{
  files: ['**/*.js'],
  languageOptions: {
    ecmaVersion: 2022,
    sourceType: 'script',
    globals: { ...browser, gfPage: 'readonly', gfFlame: 'readonly', gfFindings: 'readonly', gfGpu: 'readonly', gfTimelineCpu: 'readonly',
      gfTimelineIndex: 'readonly', gfTimelineDraw: 'readonly', gfTimelineMinimap: 'readonly', gfTimelineSelect: 'readonly',
      gfTimelineInput: 'readonly', gfTimelineFlame: 'readonly', gfTimelineFindings: 'readonly',
      gfTimelineSteps: 'readonly' },
  },
  rules: {
    'no-undef': 'error',
    'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none', varsIgnorePattern: '^gf[A-Z]' }],
    'no-redeclare': ['error', { builtinGlobals: false }],
    'no-dupe-keys': 'error',
    'no-unreachable': 'error',
    'no-self-assign': 'error',
    'no-dupe-else-if': 'error',
    'no-constant-condition': ['error', { checkLoops: false }],
    'no-shadow-restricted-names': 'error',
    'use-isnan': 'error',
    'valid-typeof': 'error',
    eqeqeq: ['error', 'always', { null: 'ignore' }],
  },
}];
