
#ifndef CAVRMAPPER_EXPORT_H
#define CAVRMAPPER_EXPORT_H

#ifdef CAVRMAPPER_STATIC_DEFINE
#  define CAVRMAPPER_EXPORT
#  define CAVRMAPPER_NO_EXPORT
#else
#  ifndef CAVRMAPPER_EXPORT
#    ifdef Mapper_EXPORTS
        /* We are building this library */
#      define CAVRMAPPER_EXPORT 
#    else
        /* We are using this library */
#      define CAVRMAPPER_EXPORT 
#    endif
#  endif

#  ifndef CAVRMAPPER_NO_EXPORT
#    define CAVRMAPPER_NO_EXPORT 
#  endif
#endif

#ifndef CAVRMAPPER_DEPRECATED
#  define CAVRMAPPER_DEPRECATED __attribute__ ((__deprecated__))
#endif

#ifndef CAVRMAPPER_DEPRECATED_EXPORT
#  define CAVRMAPPER_DEPRECATED_EXPORT CAVRMAPPER_EXPORT CAVRMAPPER_DEPRECATED
#endif

#ifndef CAVRMAPPER_DEPRECATED_NO_EXPORT
#  define CAVRMAPPER_DEPRECATED_NO_EXPORT CAVRMAPPER_NO_EXPORT CAVRMAPPER_DEPRECATED
#endif

#if 0 /* DEFINE_NO_DEPRECATED */
#  ifndef CAVRMAPPER_NO_DEPRECATED
#    define CAVRMAPPER_NO_DEPRECATED
#  endif
#endif

#endif /* CAVRMAPPER_EXPORT_H */
