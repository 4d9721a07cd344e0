/* SPDX-License-Identifier: MIT */
/*
 * assets.S - the page's template, style and script built into ebs
 * (page.c), read from report/view/assets/ at build time (the Makefile
 * rebuilds this when one of them changes).  Paths are from the tree's
 * top, where make runs.
 */
	.section .rodata
	.balign 8
	.global ebs_view_html, ebs_view_html_end
ebs_view_html:
	.incbin "report/view/assets/view.html"
ebs_view_html_end:
	.byte 0
	.balign 8
	.global ebs_view_css, ebs_view_css_end
ebs_view_css:
	.incbin "report/view/assets/view.css"
ebs_view_css_end:
	.byte 0
	.balign 8
	.global ebs_view_js, ebs_view_js_end
ebs_view_js:
	.incbin "report/view/assets/view.js"
ebs_view_js_end:
	.byte 0
	.section .note.GNU-stack,"",@progbits
