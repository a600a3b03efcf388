/work/wt-14/plugin/Mapper/CMakeFiles/Mapper.dir/vtkCavrVolumeMapper.cxx.o: \
 /work/wt-14/plugin/Mapper/vtkCavrVolumeMapper.cxx \
 /usr/include/stdc-predef.h \
 /work/wt-14/plugin/Mapper/vtkCavrVolumeMapper.h \
 /work/wt-14/plugin/Mapper/cavrMapperModule.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVolumeMapper.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkAbstractVolumeMapper.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkAbstractMapper3D.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkAbstractMapper.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkAlgorithm.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkCommonExecutionModelModule.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkDeprecation.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVersion.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkCommonCoreModule.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkObject.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkObjectBase.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkFeatures.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkIndent.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkSystemIncludes.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkWin32Header.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkABI.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkBuild.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkPlatform.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkIOStream.h \
 /usr/include/c++/12/fstream /usr/include/c++/12/istream \
 /usr/include/c++/12/ios /usr/include/c++/12/iosfwd \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++config.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/os_defines.h \
 /usr/include/features.h /usr/include/features-time64.h \
 /usr/include/x86_64-linux-gnu/bits/wordsize.h \
 /usr/include/x86_64-linux-gnu/bits/timesize.h \
 /usr/include/x86_64-linux-gnu/sys/cdefs.h \
 /usr/include/x86_64-linux-gnu/bits/long-double.h \
 /usr/include/x86_64-linux-gnu/gnu/stubs.h \
 /usr/include/x86_64-linux-gnu/gnu/stubs-64.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/cpu_defines.h \
 /usr/include/c++/12/pstl/pstl_config.h \
 /usr/include/c++/12/bits/stringfwd.h \
 /usr/include/c++/12/bits/memoryfwd.h /usr/include/c++/12/bits/postypes.h \
 /usr/include/c++/12/cwchar /usr/include/wchar.h \
 /usr/include/x86_64-linux-gnu/bits/libc-header-start.h \
 /usr/include/x86_64-linux-gnu/bits/floatn.h \
 /usr/include/x86_64-linux-gnu/bits/floatn-common.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 /usr/include/x86_64-linux-gnu/bits/wchar.h \
 /usr/include/x86_64-linux-gnu/bits/types/wint_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/mbstate_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__mbstate_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/locale_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__locale_t.h \
 /usr/include/c++/12/exception /usr/include/c++/12/bits/exception.h \
 /usr/include/c++/12/bits/exception_ptr.h \
 /usr/include/c++/12/bits/exception_defines.h \
 /usr/include/c++/12/bits/cxxabi_init_exception.h \
 /usr/include/c++/12/typeinfo /usr/include/c++/12/bits/hash_bytes.h \
 /usr/include/c++/12/new /usr/include/c++/12/bits/move.h \
 /usr/include/c++/12/type_traits \
 /usr/include/c++/12/bits/nested_exception.h \
 /usr/include/c++/12/bits/char_traits.h /usr/include/c++/12/cstdint \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h /usr/include/stdint.h \
 /usr/include/x86_64-linux-gnu/bits/types.h \
 /usr/include/x86_64-linux-gnu/bits/typesizes.h \
 /usr/include/x86_64-linux-gnu/bits/time64.h \
 /usr/include/x86_64-linux-gnu/bits/stdint-intn.h \
 /usr/include/x86_64-linux-gnu/bits/stdint-uintn.h \
 /usr/include/c++/12/bits/localefwd.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++locale.h \
 /usr/include/c++/12/clocale /usr/include/locale.h \
 /usr/include/x86_64-linux-gnu/bits/locale.h /usr/include/c++/12/cctype \
 /usr/include/ctype.h /usr/include/x86_64-linux-gnu/bits/endian.h \
 /usr/include/x86_64-linux-gnu/bits/endianness.h \
 /usr/include/c++/12/bits/ios_base.h /usr/include/c++/12/ext/atomicity.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/gthr.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/gthr-default.h \
 /usr/include/pthread.h /usr/include/sched.h \
 /usr/include/x86_64-linux-gnu/bits/types/time_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_timespec.h \
 /usr/include/x86_64-linux-gnu/bits/sched.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_sched_param.h \
 /usr/include/x86_64-linux-gnu/bits/cpu-set.h /usr/include/time.h \
 /usr/include/x86_64-linux-gnu/bits/time.h \
 /usr/include/x86_64-linux-gnu/bits/timex.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_timeval.h \
 /usr/include/x86_64-linux-gnu/bits/types/clock_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_tm.h \
 /usr/include/x86_64-linux-gnu/bits/types/clockid_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/timer_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_itimerspec.h \
 /usr/include/x86_64-linux-gnu/bits/pthreadtypes.h \
 /usr/include/x86_64-linux-gnu/bits/thread-shared-types.h \
 /usr/include/x86_64-linux-gnu/bits/pthreadtypes-arch.h \
 /usr/include/x86_64-linux-gnu/bits/atomic_wide_counter.h \
 /usr/include/x86_64-linux-gnu/bits/struct_mutex.h \
 /usr/include/x86_64-linux-gnu/bits/struct_rwlock.h \
 /usr/include/x86_64-linux-gnu/bits/setjmp.h \
 /usr/include/x86_64-linux-gnu/bits/types/__sigset_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct___jmp_buf_tag.h \
 /usr/include/x86_64-linux-gnu/bits/pthread_stack_min-dynamic.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/atomic_word.h \
 /usr/include/x86_64-linux-gnu/sys/single_threaded.h \
 /usr/include/c++/12/bits/locale_classes.h /usr/include/c++/12/string \
 /usr/include/c++/12/bits/allocator.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++allocator.h \
 /usr/include/c++/12/bits/new_allocator.h \
 /usr/include/c++/12/bits/functexcept.h \
 /usr/include/c++/12/bits/cpp_type_traits.h \
 /usr/include/c++/12/bits/ostream_insert.h \
 /usr/include/c++/12/bits/cxxabi_forced.h \
 /usr/include/c++/12/bits/stl_iterator_base_types.h \
 /usr/include/c++/12/bits/stl_iterator_base_funcs.h \
 /usr/include/c++/12/bits/concept_check.h \
 /usr/include/c++/12/debug/assertions.h \
 /usr/include/c++/12/bits/stl_iterator.h \
 /usr/include/c++/12/ext/type_traits.h \
 /usr/include/c++/12/bits/ptr_traits.h \
 /usr/include/c++/12/bits/stl_function.h \
 /usr/include/c++/12/backward/binders.h \
 /usr/include/c++/12/ext/numeric_traits.h \
 /usr/include/c++/12/bits/stl_algobase.h \
 /usr/include/c++/12/bits/stl_pair.h /usr/include/c++/12/bits/utility.h \
 /usr/include/c++/12/debug/debug.h \
 /usr/include/c++/12/bits/predefined_ops.h \
 /usr/include/c++/12/bits/refwrap.h /usr/include/c++/12/bits/invoke.h \
 /usr/include/c++/12/bits/range_access.h \
 /usr/include/c++/12/initializer_list \
 /usr/include/c++/12/bits/basic_string.h \
 /usr/include/c++/12/ext/alloc_traits.h \
 /usr/include/c++/12/bits/alloc_traits.h \
 /usr/include/c++/12/bits/stl_construct.h /usr/include/c++/12/string_view \
 /usr/include/c++/12/bits/functional_hash.h \
 /usr/include/c++/12/bits/string_view.tcc \
 /usr/include/c++/12/ext/string_conversions.h /usr/include/c++/12/cstdlib \
 /usr/include/stdlib.h /usr/include/x86_64-linux-gnu/bits/waitflags.h \
 /usr/include/x86_64-linux-gnu/bits/waitstatus.h \
 /usr/include/x86_64-linux-gnu/sys/types.h /usr/include/endian.h \
 /usr/include/x86_64-linux-gnu/bits/byteswap.h \
 /usr/include/x86_64-linux-gnu/bits/uintn-identity.h \
 /usr/include/x86_64-linux-gnu/sys/select.h \
 /usr/include/x86_64-linux-gnu/bits/select.h \
 /usr/include/x86_64-linux-gnu/bits/types/sigset_t.h \
 /usr/include/alloca.h \
 /usr/include/x86_64-linux-gnu/bits/stdlib-bsearch.h \
 /usr/include/x86_64-linux-gnu/bits/stdlib-float.h \
 /usr/include/c++/12/bits/std_abs.h /usr/include/c++/12/cstdio \
 /usr/include/stdio.h /usr/include/x86_64-linux-gnu/bits/types/__fpos_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__fpos64_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/cookie_io_functions_t.h \
 /usr/include/x86_64-linux-gnu/bits/stdio_lim.h \
 /usr/include/x86_64-linux-gnu/bits/stdio.h /usr/include/c++/12/cerrno \
 /usr/include/errno.h /usr/include/x86_64-linux-gnu/bits/errno.h \
 /usr/include/linux/errno.h /usr/include/x86_64-linux-gnu/asm/errno.h \
 /usr/include/asm-generic/errno.h /usr/include/asm-generic/errno-base.h \
 /usr/include/x86_64-linux-gnu/bits/types/error_t.h \
 /usr/include/c++/12/bits/charconv.h \
 /usr/include/c++/12/bits/basic_string.tcc \
 /usr/include/c++/12/bits/locale_classes.tcc \
 /usr/include/c++/12/system_error \
 /usr/include/x86_64-linux-gnu/c++/12/bits/error_constants.h \
 /usr/include/c++/12/stdexcept /usr/include/c++/12/streambuf \
 /usr/include/c++/12/bits/streambuf.tcc \
 /usr/include/c++/12/bits/basic_ios.h \
 /usr/include/c++/12/bits/locale_facets.h /usr/include/c++/12/cwctype \
 /usr/include/wctype.h /usr/include/x86_64-linux-gnu/bits/wctype-wchar.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/ctype_base.h \
 /usr/include/c++/12/bits/streambuf_iterator.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/ctype_inline.h \
 /usr/include/c++/12/bits/locale_facets.tcc \
 /usr/include/c++/12/bits/basic_ios.tcc /usr/include/c++/12/ostream \
 /usr/include/c++/12/bits/ostream.tcc \
 /usr/include/c++/12/bits/istream.tcc /usr/include/c++/12/bits/codecvt.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/basic_file.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++io.h \
 /usr/include/c++/12/bits/fstream.tcc /usr/include/c++/12/iomanip \
 /usr/include/c++/12/locale \
 /usr/include/c++/12/bits/locale_facets_nonio.h /usr/include/c++/12/ctime \
 /usr/include/x86_64-linux-gnu/c++/12/bits/time_members.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/messages_members.h \
 /usr/include/libintl.h /usr/include/c++/12/bits/locale_facets_nonio.tcc \
 /usr/include/c++/12/bits/locale_conv.h \
 /usr/include/c++/12/bits/quoted_string.h /usr/include/c++/12/sstream \
 /usr/include/c++/12/bits/sstream.tcc /usr/include/c++/12/iostream \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkType.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkCompiler.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkLegacy.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkOptions.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtk_kwiml.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkkwiml/abi.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkkwiml/int.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkkwiml/abi.h \
 /usr/include/inttypes.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkWrappingHints.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkOStreamWrapper.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkOStrStreamWrapper.h \
 /usr/include/c++/12/stdlib.h /usr/include/string.h \
 /usr/include/strings.h /usr/include/c++/12/atomic \
 /usr/include/c++/12/bits/atomic_base.h \
 /usr/include/c++/12/bits/atomic_lockfree_defines.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkSetGet.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkTimeStamp.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkWeakPointerBase.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVersionMacros.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkRenderingCoreModule.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkFiltersCoreModule.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkRenderingVolumeModule.h \
 /usr/include/c++/12/memory /usr/include/c++/12/bits/stl_uninitialized.h \
 /usr/include/c++/12/bits/stl_tempbuf.h \
 /usr/include/c++/12/bits/stl_raw_storage_iter.h \
 /usr/include/c++/12/bits/align.h /usr/include/c++/12/bit \
 /usr/include/c++/12/bits/uses_allocator.h \
 /usr/include/c++/12/bits/unique_ptr.h /usr/include/c++/12/tuple \
 /usr/include/c++/12/bits/shared_ptr.h \
 /usr/include/c++/12/bits/shared_ptr_base.h \
 /usr/include/c++/12/bits/allocated_ptr.h \
 /usr/include/c++/12/ext/aligned_buffer.h \
 /usr/include/c++/12/ext/concurrence.h \
 /usr/include/c++/12/bits/shared_ptr_atomic.h \
 /usr/include/c++/12/backward/auto_ptr.h \
 /usr/include/c++/12/pstl/glue_memory_defs.h \
 /usr/include/c++/12/pstl/execution_defs.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkContourValues.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkCommonMiscModule.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkCamera.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkRect.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVector.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkTuple.h \
 /usr/include/c++/12/algorithm /usr/include/c++/12/bits/stl_algo.h \
 /usr/include/c++/12/bits/algorithmfwd.h \
 /usr/include/c++/12/bits/stl_heap.h \
 /usr/include/c++/12/bits/uniform_int_dist.h \
 /usr/include/c++/12/pstl/glue_algorithm_defs.h /usr/include/c++/12/array \
 /usr/include/c++/12/compare /usr/include/c++/12/cassert \
 /usr/include/assert.h /usr/include/c++/12/cmath /usr/include/math.h \
 /usr/include/x86_64-linux-gnu/bits/math-vector.h \
 /usr/include/x86_64-linux-gnu/bits/libm-simd-decl-stubs.h \
 /usr/include/x86_64-linux-gnu/bits/flt-eval-method.h \
 /usr/include/x86_64-linux-gnu/bits/fp-logb.h \
 /usr/include/x86_64-linux-gnu/bits/fp-fast.h \
 /usr/include/x86_64-linux-gnu/bits/mathcalls-helper-functions.h \
 /usr/include/x86_64-linux-gnu/bits/mathcalls.h \
 /usr/include/x86_64-linux-gnu/bits/mathcalls-narrow.h \
 /usr/include/x86_64-linux-gnu/bits/iscanonical.h \
 /usr/include/c++/12/bits/specfun.h /usr/include/c++/12/limits \
 /usr/include/c++/12/tr1/gamma.tcc \
 /usr/include/c++/12/tr1/special_function_util.h \
 /usr/include/c++/12/tr1/bessel_function.tcc \
 /usr/include/c++/12/tr1/beta_function.tcc \
 /usr/include/c++/12/tr1/ell_integral.tcc \
 /usr/include/c++/12/tr1/exp_integral.tcc \
 /usr/include/c++/12/tr1/hypergeometric.tcc \
 /usr/include/c++/12/tr1/legendre_function.tcc \
 /usr/include/c++/12/tr1/modified_bessel_func.tcc \
 /usr/include/c++/12/tr1/poly_hermite.tcc \
 /usr/include/c++/12/tr1/poly_laguerre.tcc \
 /usr/include/c++/12/tr1/riemann_zeta.tcc \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkMath.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkMathPrivate.hxx \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkMatrixUtilities.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkSmartPointer.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkSmartPointerBase.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkMeta.h \
 /usr/include/c++/12/utility /usr/include/c++/12/bits/stl_relops.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkNew.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkTypeTraits.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkMathConfigure.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/float.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkColorTransferFunction.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkScalarsToColors.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVariant.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkStdString.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVariantInlineOperators.h \
 /usr/include/c++/12/climits \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/limits.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/syslimits.h \
 /usr/include/limits.h /usr/include/x86_64-linux-gnu/bits/posix1_lim.h \
 /usr/include/x86_64-linux-gnu/bits/local_lim.h \
 /usr/include/linux/limits.h \
 /usr/include/x86_64-linux-gnu/bits/posix2_lim.h \
 /usr/include/x86_64-linux-gnu/bits/xopen_lim.h \
 /usr/include/x86_64-linux-gnu/bits/uio_lim.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkDataArray.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkAbstractArray.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVTK_USE_SCALED_SOA_ARRAYS.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkImageData.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkCommonDataModelModule.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkDataSet.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkDataObject.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkStructuredData.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkNew.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkMatrix3x3.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkCommonMathModule.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkMatrix4x4.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkObjectFactory.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkDebugLeaksManager.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkPiecewiseFunction.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkRayCastImageDisplayHelper.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkRenderWindow.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkWindow.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkRenderer.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkViewport.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkActorCollection.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkActor.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkProp3D.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkProp.h \
 /usr/include/c++/12/vector /usr/include/c++/12/bits/stl_vector.h \
 /usr/include/c++/12/bits/stl_bvector.h \
 /usr/include/c++/12/bits/vector.tcc \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkPropCollection.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkCollection.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVolumeCollection.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVolume.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkScalarsToColors.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkSmartPointer.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVolume.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkVolumeProperty.h \
 /tmp/cavr-plain-vtk/prefix/usr/include/vtk-9.1/vtkImplicitFunction.h \
 /usr/include/c++/12/set /usr/include/c++/12/bits/stl_tree.h \
 /usr/include/c++/12/bits/node_handle.h \
 /usr/include/c++/12/bits/stl_set.h \
 /usr/include/c++/12/bits/stl_multiset.h \
 /usr/include/c++/12/bits/erase_if.h /usr/include/c++/12/unordered_map \
 /usr/include/c++/12/bits/hashtable.h \
 /usr/include/c++/12/bits/hashtable_policy.h \
 /usr/include/c++/12/bits/enable_special_members.h \
 /usr/include/c++/12/bits/unordered_map.h \
 /work/wt-14/core/include/cavr/cavr.h \
 /work/wt-14/core/include/cavr/cavr_common.h \
 /tmp/cavr-plain-vtk/build/cavr/core/include/cavr/cavr_config.h \
 /work/wt-14/core/include/cavr/cavr_device.h \
 /work/wt-14/core/include/cavr/cavr_volume.h \
 /work/wt-14/core/include/cavr/cavr_transfer_function.h \
 /work/wt-14/core/include/cavr/cavr_camera.h \
 /work/wt-14/core/include/cavr/cavr_settings.h \
 /work/wt-14/core/include/cavr/cavr_framebuffer.h \
 /work/wt-14/core/include/cavr/cavr_render.h
