# golden.s - a program with fixed addresses and hand-written DWARF, so
# that annotate's golden output does not depend on the compiler: work()
# (lines 9-16 of golden.c, declared at 8, with helper() inlined at line 14)
# and cold() (declared at 18), and twice() (declared at 24), inlined into
# itself as gcc does with recursion, its DWARF name an alias (__GI_twice,
# as glibc's are) of its symbol's.  Like gcc -O2 code, work() also has rows of
# other functions' lines that no inline scope covers (lines 5 and 19):
# they must not stretch its own range.
# Linked with -Ttext=0x401000 and no build-id; never run.  Its source path
# is long (for elision) and not on the test machine (for --source-dir).
	.text
	.globl	work
	.type	work, @function
work:
	.file 1 "/build/ebs-golden/a-long-source-directory/golden.c"
	.loc 1 9 0
	pushq	%rbp
	movq	%rsp, %rbp
	.loc 1 10 0
	xorl	%eax, %eax
	xorl	%ecx, %ecx
	.loc 1 12 0
.Lloop:
	cmpl	%edi, %ecx
	jge	.Ldone
	.loc 1 13 0
	addl	%ecx, %eax
	addl	$1, %ecx
	.loc 1 19 0		# cold's line, no inline scope
	nop
	.loc 1 5 0		# helper's line, no inline scope
	nop
	.loc 1 12 0
	jmp	.Lloop
.Ldone:
	.loc 1 5 0
.Linl_start:
	leal	(%rax,%rax,2), %eax
	nop
.Linl_end:
	.loc 1 15 0
	popq	%rbp
	ret
.Lwork_end:
	.size	work, .-work

	.globl	cold
	.type	cold, @function
cold:
	.loc 1 20 0
	movl	$1, %eax
	ret
.Lcold_end:
	.size	cold, .-cold

	.globl	twice
	.type	twice, @function
twice:
	.loc 1 25 0
	movl	%edi, %eax
	.loc 1 26 0
.Ltwice_inl_start:
	addl	%eax, %eax
	addl	%eax, %eax
.Ltwice_inl_end:
	ret
.Ltwice_end:
	.size	twice, .-twice

	.section .debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1		# compile unit
	.uleb128 0x11
	.byte 1
	.uleb128 0x3, 0x8	# name: string
	.uleb128 0x11, 0x1	# low_pc: addr
	.uleb128 0x12, 0x7	# high_pc: data8 (a length)
	.uleb128 0x10, 0x17	# stmt_list: sec_offset
	.byte 0, 0
	.uleb128 2		# subprogram with children
	.uleb128 0x2e
	.byte 1
	.uleb128 0x3, 0x8
	.uleb128 0x3a, 0xb	# decl_file: data1
	.uleb128 0x3b, 0xb	# decl_line: data1
	.uleb128 0x11, 0x1
	.uleb128 0x12, 0x7
	.byte 0, 0
	.uleb128 3		# abstract subprogram (inline)
	.uleb128 0x2e
	.byte 0
	.uleb128 0x3, 0x8
	.uleb128 0x3a, 0xb
	.uleb128 0x3b, 0xb
	.uleb128 0x20, 0xb	# inline: data1
	.byte 0, 0
	.uleb128 4		# inlined subroutine
	.uleb128 0x1d
	.byte 0
	.uleb128 0x31, 0x13	# abstract_origin: ref4
	.uleb128 0x11, 0x1
	.uleb128 0x12, 0x7
	.uleb128 0x58, 0xb	# call_file: data1
	.uleb128 0x59, 0xb	# call_line: data1
	.byte 0, 0
	.uleb128 6		# concrete out-of-line instance, with children
	.uleb128 0x2e
	.byte 1
	.uleb128 0x31, 0x13	# abstract_origin: ref4
	.uleb128 0x11, 0x1
	.uleb128 0x12, 0x7
	.byte 0, 0
	.uleb128 5		# subprogram, no children
	.uleb128 0x2e
	.byte 0
	.uleb128 0x3, 0x8
	.uleb128 0x3a, 0xb
	.uleb128 0x3b, 0xb
	.uleb128 0x11, 0x1
	.uleb128 0x12, 0x7
	.byte 0, 0
	.byte 0

	.section .debug_info,"",@progbits
.Linfo:
	.long	.Linfo_end - .Linfo_start
.Linfo_start:
	.value	4		# DWARF 4
	.long	.Labbrev
	.byte	8
	.uleb128 1		# the unit
	.string	"/build/ebs-golden/a-long-source-directory/golden.c"
	.quad	work
	.quad	.Ltwice_end - work
	.long	.Lline
.Lhelper_die = . - .Linfo
	.uleb128 3		# helper, abstract
	.string	"helper"
	.byte	1		# declared in golden.c
	.byte	3		# at line 3
	.byte	3		# DW_INL_declared_inlined
	.uleb128 2		# work
	.string	"work"
	.byte	1
	.byte	8
	.quad	work
	.quad	.Lwork_end - work
	.uleb128 4		# helper inlined into work at line 14
	.long	.Lhelper_die
	.quad	.Linl_start
	.quad	.Linl_end - .Linl_start
	.byte	1
	.byte	14
	.byte	0		# end of work's children
	.uleb128 5		# cold
	.string	"cold"
	.byte	1
	.byte	18
	.quad	cold
	.quad	.Lcold_end - cold
.Ltwice_die = . - .Linfo
	.uleb128 3		# twice, abstract
	.string	"__GI_twice"	# DWARF names it by an alias, as glibc does
	.byte	1
	.byte	24
	.byte	3
	.uleb128 6		# twice out of line, with itself inlined at line 26
	.long	.Ltwice_die
	.quad	twice
	.quad	.Ltwice_end - twice
	.uleb128 4
	.long	.Ltwice_die
	.quad	.Ltwice_inl_start
	.quad	.Ltwice_inl_end - .Ltwice_inl_start
	.byte	1
	.byte	26
	.byte	0		# end of twice's children
	.byte	0		# end of the unit's children
.Linfo_end:

	.section .debug_line,"",@progbits
.Lline:
